-- bond_risk scenario results: the database beside each input database
-- (DB.db -> DB.scenarios.db), written by `bond_risk scenarios` and by
-- bond_risk_mpi's rank 0, read by `bond_risk plot pnl`. A file of its own,
-- apart from the live results (schema/results.sql): those are written
-- without syncs and replaced after a power loss, while these are computed
-- overnight and must survive one, so this file is synced at every commit. Idempotent, like schema/bond_risk.sql.

-- Scenario P&L (docs/model.md "Scenarios"), written by `bond_risk scenarios`:
-- per scenario of a set, each book's P&L (an outright book's pv change, a
-- repo book's mtm_pnl change) and a repo book's margin change (NULL for
-- outright books); book_id NULL is the total over every book. A run
-- replaces its set's rows.
CREATE TABLE IF NOT EXISTS scenario_pnl (
  set_name      TEXT NOT NULL,
  scenario_id   INTEGER NOT NULL,
  book_id       INTEGER,
  pnl           REAL NOT NULL,
  margin_change REAL
);
CREATE INDEX IF NOT EXISTS scenario_pnl_by_set ON scenario_pnl (set_name, book_id, scenario_id);

-- For a historical set: 1-day VaR at 99% and expected shortfall at 97.5% of
-- each book's P&L and of the total (book_id NULL), positive for a loss,
-- over `scenarios` scenarios.
CREATE TABLE IF NOT EXISTS scenario_var (
  set_name  TEXT NOT NULL,
  book_id   INTEGER,
  scenarios INTEGER NOT NULL,
  var_99    REAL NOT NULL,
  es_975    REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS scenario_var_by_set ON scenario_var (set_name, book_id);
