-- bond_risk database schema. Usable as is: sqlite3 my.db < schema/bond_risk.sql
-- Every statement is idempotent, so the engine also runs this file (compiled
-- in) on existing databases to add what is missing.
-- Ids are unique across all node tables. Dates are ISO text YYYY-MM-DD.

CREATE TABLE IF NOT EXISTS calendar (
  id    INTEGER PRIMARY KEY,
  name  TEXT UNIQUE NOT NULL,
  today TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS ir_curve (
  id   INTEGER PRIMARY KEY,
  name TEXT UNIQUE NOT NULL,
  ccy  TEXT NOT NULL
);

-- Input points of a curve: days_forward strictly increasing from 0 to 7305,
-- value a continuously compounded annual rate (0.024 = 2.4%).
CREATE TABLE IF NOT EXISTS ir_curve_input_rate (
  ir_curve_id  INTEGER NOT NULL,
  idx          INTEGER NOT NULL,
  days_forward INTEGER NOT NULL,
  value        REAL NOT NULL,
  PRIMARY KEY (ir_curve_id, idx)
);

CREATE TABLE IF NOT EXISTS bond (
  id               INTEGER PRIMARY KEY,
  name             TEXT UNIQUE NOT NULL,
  calendar_id      INTEGER NOT NULL,
  ir_curve_id      INTEGER NOT NULL,
  start_date       TEXT NOT NULL,
  maturity_date    TEXT NOT NULL,
  coupons_per_year INTEGER NOT NULL,  -- 1, 2 or 4
  coupon           REAL NOT NULL,     -- annual rate, 0.028 = 2.8%
  convention       TEXT,              -- a bond_convention name; NULL: the trad4 model (docs/model.md)
  isin             TEXT               -- ISO 6166, its check digit verified; NULL: none
);
-- (A bond table from before conventions gains the last two columns when the
-- engine or an import opens it; its ISINs are unique through bond_isin,
-- created then too.)

-- A market's conventions (docs/model.md "Market conventions"): settlement
-- days 0..7; day_count ACT/ACT-ICMA, 30/360 or 30E/360; payment_convention
-- UNADJUSTED, FOLLOWING or MODIFIED_FOLLOWING; ex_dividend_days 0..15;
-- yield_compounding COMPOUNDED or SIMPLE_IN_LAST_PERIOD. A bad field fails
-- the bonds that name the row.
CREATE TABLE IF NOT EXISTS bond_convention (
  name               TEXT PRIMARY KEY,
  settlement_days    INTEGER,
  day_count          TEXT,
  payment_convention TEXT,
  ex_dividend_days   INTEGER,
  yield_compounding  TEXT
);

-- A calendar's holidays (YYYY-MM-DD); Saturdays and Sundays are never
-- business days. A date that cannot be read fails the calendar.
CREATE TABLE IF NOT EXISTS calendar_holiday (
  calendar_id INTEGER NOT NULL,
  date        TEXT NOT NULL,
  PRIMARY KEY (calendar_id, date)
);

-- A bond's market quote (docs/model.md "Market quotes and spread"): its clean
-- price per 100 nominal. No row: no quote. A value that is not a finite
-- positive number (NULL included) makes the bond FAILED.
CREATE TABLE IF NOT EXISTS bond_quote (
  bond_id     INTEGER PRIMARY KEY,
  clean_price REAL
);

CREATE TABLE IF NOT EXISTS outright_trade (
  id          INTEGER PRIMARY KEY,
  name        TEXT UNIQUE NOT NULL,
  bond_id     INTEGER NOT NULL,
  trade_date  TEXT NOT NULL,
  trade_price REAL NOT NULL,     -- per 100 nominal
  quantity    INTEGER NOT NULL,
  buy_sell    TEXT NOT NULL      -- 'BUY' or 'SELL'
);

CREATE TABLE IF NOT EXISTS repo_trade (
  id          INTEGER PRIMARY KEY,
  name        TEXT UNIQUE NOT NULL,
  bond_id     INTEGER NOT NULL,
  calendar_id INTEGER NOT NULL,
  ir_curve_id INTEGER NOT NULL,
  start_date  TEXT NOT NULL,
  end_date    TEXT NOT NULL,
  notional    INTEGER NOT NULL,
  start_cash  REAL NOT NULL,
  rate        REAL NOT NULL,     -- annual, continuously compounded, 0.05 = 5%
  cash_ccy    TEXT NOT NULL,
  buy_sell    TEXT NOT NULL      -- 'BUY' or 'SELL'
);

CREATE TABLE IF NOT EXISTS outright_book (
  id   INTEGER PRIMARY KEY,
  name TEXT UNIQUE NOT NULL
);

CREATE TABLE IF NOT EXISTS outright_book_trade (
  book_id  INTEGER NOT NULL,
  trade_id INTEGER NOT NULL,
  PRIMARY KEY (book_id, trade_id)
);

CREATE TABLE IF NOT EXISTS repo_book (
  id   INTEGER PRIMARY KEY,
  name TEXT UNIQUE NOT NULL
);

CREATE TABLE IF NOT EXISTS repo_book_trade (
  book_id  INTEGER NOT NULL,
  trade_id INTEGER NOT NULL,
  PRIMARY KEY (book_id, trade_id)
);

-- Book membership looked up from the trade side (which books hold a trade).
CREATE INDEX IF NOT EXISTS outright_book_trade_by_trade ON outright_book_trade (trade_id);
CREATE INDEX IF NOT EXISTS repo_book_trade_by_trade ON repo_book_trade (trade_id);

-- Risk limits (docs/model.md "Limits"): a bound on one measure of a book
-- (book_id NULL: of the total), measure one of pv01, kr01 (the input point
-- ir_curve_id, idx), cs01, day_pnl, margin; lower or upper NULL when
-- unbounded. A row that cannot hold is FAILED with its reason; the others
-- are read (model/limits/risk_limits.h).
CREATE TABLE IF NOT EXISTS risk_limit (
  id          INTEGER PRIMARY KEY,
  book_id     INTEGER,
  measure     TEXT NOT NULL,
  ir_curve_id INTEGER,
  idx         INTEGER,
  lower       REAL,
  upper       REAL
);

-- Every state-changing command the running engine applied, committed with
-- the change itself before the command was acknowledged.
CREATE TABLE IF NOT EXISTS event_log (
  seq     INTEGER PRIMARY KEY,
  time    TEXT NOT NULL,   -- UTC, ISO 8601
  command TEXT NOT NULL,
  result  TEXT NOT NULL    -- the reply's JSON members
);

-- The P&L day (docs/model.md "The P&L day and its explain"): each day begun
-- after event `seq` (0: before any), with every book's measure then; and
-- per recalculation of the day's events (one cause's events in a row, up to
-- event `seq`), each book's move and what its key-rate ladder predicted
-- (NaN: no prediction), committed with the events. Replaying the logged
-- commands in these groups gives the same bits. `moves` packs
-- (book id int64, actual double, predicted double) per book, in the host's
-- byte order (db/pnl_day_log.h).
CREATE TABLE IF NOT EXISTS pnl_day (
  seq      INTEGER PRIMARY KEY,
  time     TEXT NOT NULL,   -- UTC, ISO 8601
  baseline BLOB NOT NULL    -- (book id int64, measure double) per book
);
CREATE TABLE IF NOT EXISTS pnl_move (
  id       INTEGER PRIMARY KEY,
  day      INTEGER NOT NULL,  -- pnl_day.seq
  seq      INTEGER NOT NULL,  -- event_log.seq of the group's last event; 0: changes by other programs
  cause    TEXT,              -- curve, roll, new, amended, removed, external; NULL: quotes alone
  curve_id INTEGER,           -- a curve cause's ir_curve id
  moves    BLOB NOT NULL
);

-- Each change of a risk limit's state (an alert: docs/model.md "Limits"),
-- committed with the event that caused it: seq is event_log's, time the
-- alert's. cause 'event': that event; 'external': changes other programs
-- made (also while no engine ran), applied after event seq. States are OK,
-- BREACHED, UNKNOWN; bound is the one crossed, or the one on the value's
-- side (NULL: none). The engine's result writer copies each row, by id, to
-- limit_event in the results database.
CREATE TABLE IF NOT EXISTS limit_alert (
  id         INTEGER PRIMARY KEY,
  seq        INTEGER NOT NULL,
  time       TEXT NOT NULL,  -- UTC, ISO 8601
  cause      TEXT NOT NULL,
  limit_id   INTEGER NOT NULL,
  book_id    INTEGER,        -- NULL: the total
  measure    TEXT NOT NULL,
  from_state TEXT NOT NULL,
  to_state   TEXT NOT NULL,
  value      REAL,
  bound      REAL
);

-- database_holder (holder, pid, since): who holds this database, the
-- running engine serving it or a batch run writing its results. The holder
-- also holds an flock on the database file itself; the table is created by
-- bond_risk/db/database_lock.cpp when it takes the lock.

-- Scenario sets (docs/model.md "Scenarios"): a set is a list of scenarios, each
-- a list of shifts in basis points to curve input points (ir_curve_id, idx
-- as in ir_curve_input_rate). kind 'historical' sets (one day's moves per
-- scenario) also get VaR and expected shortfall; 'stress' sets do not.
CREATE TABLE IF NOT EXISTS scenario_set (
  name TEXT PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('historical', 'stress'))
);

CREATE TABLE IF NOT EXISTS scenario (
  id       INTEGER PRIMARY KEY,
  name     TEXT UNIQUE NOT NULL,
  set_name TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS scenario_shift (
  scenario_id INTEGER NOT NULL,
  ir_curve_id INTEGER NOT NULL,
  idx         INTEGER NOT NULL,
  shift_bp    REAL NOT NULL,
  PRIMARY KEY (scenario_id, ir_curve_id, idx)
);
