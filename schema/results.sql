-- bond_risk results schema: the results database beside each input
-- database (DB.db -> DB.results.db), written by `bond_risk run --batch` and
-- by the running engine's result writer. A separate file, so that writing
-- results never holds the input database's write lock. Everything here is
-- derived from the inputs: written without syncs, and replaced after a
-- reboot (results_file below; db/result_writer.h). Scenario results live in
-- schema/scenarios.sql's file. Idempotent, like schema/bond_risk.sql.

-- One row per bond, trade and book.
-- status is OK, FAILED, STALE or EXPIRED; reason says why a node is not OK.
-- Values are NULL for FAILED and STALE nodes (books: for FAILED only) and 0
-- for EXPIRED ones. A book's excluded counts the members left out of its sums.
-- Quote analytics (docs/model.md "Quote analytics"): a bond's accrued .. convexity
-- are NULL unless it is OK (yield, durations and convexity also when its
-- only cash flow left is today's); market_dirty, z_spread and cs01 unless it
-- also has a quote; quote_yield (the yield at the quote's dirty price) too.
-- settlement_date and dirty_price are a convention bond's (docs/model.md
-- "Market conventions"), NULL for the others. A trade's cs01 is NULL on an unquoted bond; an outright
-- book's sums its quoted members' and `unquoted` counts the others. A
-- results file of another schema is replaced when a writer opens it
-- (results_file below).
CREATE TABLE IF NOT EXISTS bond_result (
  id     INTEGER PRIMARY KEY,
  status TEXT NOT NULL,
  reason TEXT NOT NULL,
  price  REAL,
  pv01   REAL,
  accrued           REAL,
  clean_price       REAL,
  yield             REAL,
  macaulay_duration REAL,
  modified_duration REAL,
  convexity         REAL,
  market_dirty      REAL,
  z_spread          REAL,
  cs01              REAL,
  settlement_date   TEXT,
  dirty_price       REAL,
  quote_yield       REAL
);

CREATE TABLE IF NOT EXISTS outright_trade_result (
  id     INTEGER PRIMARY KEY,
  status TEXT NOT NULL,
  reason TEXT NOT NULL,
  pv     REAL,
  pv01   REAL,
  pnl    REAL,
  cs01   REAL
);

CREATE TABLE IF NOT EXISTS repo_trade_result (
  id       INTEGER PRIMARY KEY,
  status   TEXT NOT NULL,
  reason   TEXT NOT NULL,
  end_cash REAL,
  margin   REAL,
  mtm_pnl  REAL
);

CREATE TABLE IF NOT EXISTS outright_book_result (
  id       INTEGER PRIMARY KEY,
  status   TEXT NOT NULL,
  reason   TEXT NOT NULL,
  pv       REAL,
  pv01     REAL,
  pnl      REAL,
  cs01     REAL,
  excluded INTEGER,
  unquoted INTEGER
);

CREATE TABLE IF NOT EXISTS repo_book_result (
  id       INTEGER PRIMARY KEY,
  status   TEXT NOT NULL,
  reason   TEXT NOT NULL,
  margin   REAL,
  mtm_pnl  REAL,
  excluded INTEGER
);

-- Key-rate ladders (docs/model.md "Key-rate risk"): one row per input point of
-- each curve a bond or book depends on (idx as in ir_curve_input_rate), for
-- the nodes that publish values; none when the engine runs with KEY_RATES=0.
-- A bond's kr01 is per 100 nominal; a repo book's margin and mtm_pnl each
-- have a ladder. Trades' ladders are not stored (the engine's `get` gives them).
CREATE TABLE IF NOT EXISTS bond_key_rate (
  id          INTEGER NOT NULL,
  ir_curve_id INTEGER NOT NULL,
  idx         INTEGER NOT NULL,
  kr01        REAL NOT NULL,
  PRIMARY KEY (id, ir_curve_id, idx)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS outright_book_key_rate (
  id          INTEGER NOT NULL,
  ir_curve_id INTEGER NOT NULL,
  idx         INTEGER NOT NULL,
  kr01        REAL NOT NULL,
  PRIMARY KEY (id, ir_curve_id, idx)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS repo_book_key_rate (
  id           INTEGER NOT NULL,
  ir_curve_id  INTEGER NOT NULL,
  idx          INTEGER NOT NULL,
  margin_kr01  REAL NOT NULL,
  mtm_pnl_kr01 REAL NOT NULL,
  PRIMARY KEY (id, ir_curve_id, idx)
) WITHOUT ROWID;

-- The risk limits' alerts (docs/model.md "Limits"), copied by the running
-- engine's result writer from the input database's limit_alert (its
-- columns are described there), by id, with the results of their events:
-- every alert of the events up to results_as_of is here, each once.
CREATE TABLE IF NOT EXISTS limit_event (
  id         INTEGER PRIMARY KEY,
  seq        INTEGER NOT NULL,
  time       TEXT NOT NULL,
  cause      TEXT NOT NULL,
  limit_id   INTEGER NOT NULL,
  book_id    INTEGER,
  measure    TEXT NOT NULL,
  from_state TEXT NOT NULL,
  to_state   TEXT NOT NULL,
  value      REAL,
  bound      REAL
);

-- The event (event_log.seq in the input database) that the result tables
-- reflect: every command up to it, none after. One row; 0 before any event.
CREATE TABLE IF NOT EXISTS results_as_of (
  event_seq  INTEGER NOT NULL,
  written_at TEXT NOT NULL   -- UTC, ISO 8601
);

-- Who created this file: the boot of the host (Linux's
-- /proc/sys/kernel/random/boot_id) and a hash of this schema's text. It is
-- written without syncs, so only a crash of the host can break it: a
-- writer reuses it in the same boot with the same schema and replaces it
-- otherwise. One row.
CREATE TABLE IF NOT EXISTS results_file (
  boot_id TEXT NOT NULL,
  schema  TEXT NOT NULL
);
