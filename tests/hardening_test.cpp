// The engine as a careless or hostile user, another program or a full disk
// meets it: each case here broke it once.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "base/unix_socket.h"
#include "bond_risk/cli/settings.h"
#include "bond_risk/db/change_log.h"
#include "bond_risk/synth/generator.h"
#include "bond_risk/db/result_writer.h"
#include "bond_risk/model/store/published_values.h"
#include "tests/live_support.h"

using namespace bond_risk;
using test::Live;
using test::run_cli;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST(Hardening, ADatabaseLockedByAnotherProgramFailsTheBatchAndTheEngineServesOn) {
  Live live("100", 20);
  live.db->set_busy_timeout(50);
  const std::uint64_t digest = results_digest(live.store());
  const std::string ot = std::to_string(test::first_id(live.store(), Kind::outright_trade));
  {
    base::Database other(live.path, base::Database::Mode::read_write);
    other.exec("BEGIN IMMEDIATE");
    const base::Json refused = live.run("amend-trade " + ot + " quantity=7");
    EXPECT_EQ(refused["ok"], false);
    EXPECT_TRUE(contains(refused.value("error", ""), "none of it was applied")) << refused.dump();
    EXPECT_TRUE(contains(refused.value("error", ""), "locked")) << refused.dump();
    EXPECT_EQ(results_digest(live.store()), digest);
    EXPECT_TRUE(live.run("stats").contains("degraded"));
    EXPECT_EQ(live.run("get " + ot)["ok"], true);  // reads go on
    other.exec("ROLLBACK");
  }
  EXPECT_EQ(live.run("amend-trade " + ot + " quantity=7")["ok"], true);
  EXPECT_FALSE(live.run("stats").contains("degraded"));
  test::expect_same_as_fresh(live);
}

TEST(Hardening, RowsOfAFailedResultWriteAreWrittenOnceTheResultsDatabaseAllowsIt) {
  // The outright books' ids reversed, so that their trades (laid out book by book) lie out of id order: a
  // batch's rows, written in id order, are not in the order the engine recalculated them.
  Live live("100", 20, 2, R"SQL(
CREATE TEMP TABLE ranked AS SELECT id, row_number() OVER (ORDER BY id) AS k FROM outright_book;
CREATE TEMP TABLE renamed AS SELECT a.id AS old_id, b.id AS new_id FROM ranked a JOIN ranked b
  ON a.k + b.k = (SELECT count(*) + 1 FROM ranked);
CREATE TEMP TABLE members AS SELECT new_id AS book_id, trade_id FROM outright_book_trade JOIN renamed ON book_id = old_id;
DELETE FROM outright_book_trade;
INSERT INTO outright_book_trade SELECT book_id, trade_id FROM members;
)SQL");
  ResultPublisher& results = live.executor->results();
  ASSERT_EQ(results.wait_written(), live.executor->served_event());
  // The last outright trade on a GBP-GILT bond: in the failed batch, and last by id, first by index.
  const Store& s = live.store();
  const NodeIndex gilt = s.names.at("GBP-GILT").index;
  std::int64_t ot_id = 0;
  for (NodeIndex i = 0; i < s.outright_trades.size(); ++i) {
    if (s.bonds[s.outright_trades[i].bond].curve == gilt) ot_id = std::max(ot_id, s.id(ref(Kind::outright_trade, i)));
  }
  ASSERT_NE(ot_id, 0);
  const std::string ot = std::to_string(ot_id);
  {
    // Another program holds the results database's write lock past the writer's busy timeout (5 s).
    base::Database other(results_path(live.path), base::Database::Mode::read_write);
    other.exec("BEGIN IMMEDIATE");
    ASSERT_EQ(live.run("bump-curve GBP-GILT 1")["ok"], true);  // rows of the curve's bonds, trades and books
    test::eventually([&] { return !results.last_error().empty(); });
    ASSERT_TRUE(contains(results.last_error(), "locked")) << results.last_error();
    EXPECT_LT(results.written_as_of(), live.executor->served_event());
    // A newer batch, of one of its trades, must not leave the failed one's other rows behind.
    ASSERT_EQ(live.run("amend-trade " + ot + " quantity=3")["ok"], true);
  }  // the lock is released; no further event comes
  test::eventually(
      [&] { return results.written_as_of() == live.executor->served_event() && results.last_error().empty(); });
  ASSERT_EQ(results.written_as_of(), live.executor->served_event()) << results.last_error();
  test::expect_result_tables_fresh(live);
}

// The writer yields to recalculations but never starves: with the master
// recalculating all the time (a flood of events), a batch of every row is
// still written, a slice at a time (the 50k preset's rows: some 25 slices).
TEST(Hardening, AMasterRecalculatingAllTheTimeDoesNotStarveTheResultWriter) {
  test::TempDir dir;
  bond_risk::generate(bond_risk::find_preset("50k"), bond_risk::GenerateOptions{}, dir.path("t.db"));
  const auto model = test::calculate(dir.path("t.db"));
  ResultPublisher results(dir.path("t.db"));
  const ResultPublisher::Busy busy(results);
  results.add_all(model->store, model->graph);
  results.seal(7);
  EXPECT_EQ(results.wait_written(), 7) << results.last_error();
  base::Database written(dir.path("t.results.db"), base::Database::Mode::read_only);
  base::Statement rows = written.prepare("SELECT count(*) FROM outright_trade_result");
  ASSERT_TRUE(rows.step());
  EXPECT_EQ(static_cast<std::size_t>(rows.integer(0)), model->store.outright_trades.size());
}

// A results file the writer did not create is replaced when it opens it,
// but not while another program has it open in WAL mode: that program,
// closing last, would delete the new file's -wal and -shm. The writer says
// so and tries again; once the program is gone, it replaces the file.
TEST(Hardening, AResultsFileAnotherProgramHasOpenIsReplacedOnlyOnceItIsClosed) {
  test::TempDir dir;
  bond_risk::generate(bond_risk::find_preset("tiny"), bond_risk::GenerateOptions{}, dir.path("t.db"));
  const auto model = test::calculate(dir.path("t.db"));
  const std::string path = dir.path("t.results.db");
  auto other = std::make_unique<base::Database>(path, base::Database::Mode::create);
  other->exec("PRAGMA journal_mode = WAL; CREATE TABLE planted (x)");
  ResultPublisher results(dir.path("t.db"));
  results.add_all(model->store, model->graph);
  results.seal(7);
  test::eventually([&] { return !results.last_error().empty(); });
  EXPECT_TRUE(contains(results.last_error(), path + " is open in another program")) << results.last_error();
  EXPECT_TRUE(other->has_table("planted"));
  other.reset();
  test::eventually([&] { return results.written_as_of() == 7; });
  ASSERT_EQ(results.written_as_of(), 7) << results.last_error();
  base::Database written(path, base::Database::Mode::read_only);
  EXPECT_FALSE(written.has_table("planted"));
  base::Statement rows = written.prepare("SELECT count(*) FROM bond_result");
  ASSERT_TRUE(rows.step());
  EXPECT_EQ(static_cast<std::size_t>(rows.integer(0)), model->store.bonds.size());
}

// A results file is written without syncs, so a crash of the host may leave
// it broken. One created in another boot of the host, or by another schema,
// is replaced; one this boot created is reused; a broken one is replaced
// rather than failed on.
TEST(Hardening, AResultsFileIsReusedOnlyInTheBootAndSchemaThatCreatedIt) {
  test::TempDir dir;
  const std::string db = dir.path("t.db");
  bond_risk::generate(bond_risk::find_preset("tiny"), bond_risk::GenerateOptions{}, db);
  const auto batch_keeps_planted = [&](const std::string& change) {
    {
      base::Database file(bond_risk::results_path(db), base::Database::Mode::read_write);
      file.exec("CREATE TABLE IF NOT EXISTS planted (x);" + change);
    }
    const test::CliResult run = test::run_cli("run --batch --db " + db);
    EXPECT_EQ(run.exit_code, 0) << run.err;
    return base::Database(bond_risk::results_path(db), base::Database::Mode::read_only).has_table("planted");
  };
  ASSERT_EQ(test::run_cli("run --batch --db " + db).exit_code, 0);
  EXPECT_TRUE(batch_keeps_planted(""));
  EXPECT_FALSE(batch_keeps_planted("UPDATE results_file SET boot_id = 'another boot'"));
  EXPECT_TRUE(batch_keeps_planted(""));
  EXPECT_FALSE(batch_keeps_planted("UPDATE results_file SET schema = 'another schema'"));
}

TEST(Hardening, ABrokenResultsFileIsReplacedByTheNextStart) {
  test::TempDir dir;
  const std::string db = dir.path("t.db");
  bond_risk::generate(bond_risk::find_preset("tiny"), bond_risk::GenerateOptions{}, db);
  ASSERT_EQ(test::run_cli("run --batch --db " + db).exit_code, 0);
  {
    std::fstream file(bond_risk::results_path(db), std::ios::in | std::ios::out | std::ios::binary);
    file << std::string(4096, '\x5a');  // the header and first page overwritten
  }
  const test::CliResult again = test::run_cli("run --batch --db " + db);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  const std::string book = std::to_string(test::first_id(test::calculate(db)->store, Kind::outright_book));
  const test::CliResult shown = test::run_cli("show --db " + db + " " + book);
  EXPECT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_NE(shown.out.find("OK"), std::string::npos) << shown.out;

  // Damaged within the boot that created it (its results_file row still
  // readable, so it is reused): the batch run that finds it so writes anew.
  std::int64_t page = 0, page_size = 0;
  {
    base::Database file(bond_risk::results_path(db), base::Database::Mode::read_only);
    base::Statement root = file.prepare("SELECT rootpage FROM sqlite_schema WHERE name = 'bond_result'");
    ASSERT_TRUE(root.step());
    page = root.integer(0);
    base::Statement size = file.prepare("PRAGMA page_size");
    ASSERT_TRUE(size.step());
    page_size = size.integer(0);
  }
  {
    std::fstream file(bond_risk::results_path(db), std::ios::in | std::ios::out | std::ios::binary);
    file.seekp((page - 1) * page_size);
    file << std::string(static_cast<std::size_t>(page_size), '\x5a');  // bond_result's root page
  }
  const test::CliResult damaged = test::run_cli("run --batch --db " + db);
  ASSERT_EQ(damaged.exit_code, 0) << damaged.err;
  EXPECT_TRUE(contains(damaged.err, "is damaged")) << damaged.err;
  const test::CliResult shown_again = test::run_cli("show --db " + db + " " + book);
  EXPECT_EQ(shown_again.exit_code, 0) << shown_again.err;
  EXPECT_NE(shown_again.out.find("OK"), std::string::npos) << shown_again.out;
}

TEST(Hardening, AChangeAnotherProgramCommitsWhileABatchAwaitsTheWriteLockIsApplied) {
  Live live("100", 20);
  const std::string ot = std::to_string(test::first_id(live.store(), Kind::outright_trade));
  const std::string ot2 = std::to_string(test::first_id(live.store(), Kind::outright_trade) + 1);
  base::Database other(live.path, base::Database::Mode::read_write);
  other.exec("BEGIN IMMEDIATE");
  other.exec("UPDATE outright_trade SET quantity = 4321 WHERE id = " + ot2);
  // The amendment waits for the write lock (the busy timeout is 5 s); the other program commits meanwhile.
  std::thread committer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    other.exec("COMMIT");
  });
  const base::Json amended = live.run("amend-trade " + ot + " quantity=7");
  committer.join();
  EXPECT_EQ(amended["ok"], true) << amended.dump();
  test::expect_same_as_fresh(live);  // trade ot2 has quantity 4321
}

TEST(Hardening, AnotherProgramHoldingTheWriteLockAfterItsChangeDoesNotStopTheEngine) {
  Live live("100", 20);
  live.db->set_busy_timeout(50);
  const std::string ot = std::to_string(test::first_id(live.store(), Kind::outright_trade));
  base::Database other(live.path, base::Database::Mode::read_write);
  other.exec("UPDATE outright_trade SET quantity = 4321 WHERE id = " + ot);
  other.exec("BEGIN IMMEDIATE");  // and holds the lock past the busy timeout
  EXPECT_NO_THROW(live.executor->sync_external(false));  // the server's poll: it threw, and the engine exited
  other.exec("ROLLBACK");
  live.executor->sync_external(false);  // no new commit since: the poll retries what it could not apply
  test::expect_same_as_fresh(live);
  EXPECT_FALSE(live.run("stats").contains("degraded"));
}

// A read needs no write lock: while another program holds it (after a
// change of its own that the engine has yet to apply), reads are answered
// from the model as it stands, at once, a write in the same batch is
// refused, and the server's poll does not stop for it.
TEST(Hardening, ReadsAreAnsweredWhileAnotherProgramHoldsTheWriteLock) {
  Live live("100", 20);
  live.db->set_busy_timeout(3000);
  const std::string ot = std::to_string(test::first_id(live.store(), Kind::outright_trade));
  base::Database other(live.path, base::Database::Mode::read_write);
  other.exec("UPDATE outright_trade SET quantity = 4321 WHERE id = " + ot);
  other.exec("BEGIN IMMEDIATE");
  const auto waited = [](auto&& f) {
    const auto start = std::chrono::steady_clock::now();
    f();
    return std::chrono::steady_clock::now() - start;
  };
  EXPECT_LT(waited([&] { live.executor->sync_external(false); }), std::chrono::milliseconds(2000))
      << "the poll waited for the write lock";
  base::Json read;
  EXPECT_LT(waited([&] { read = live.run("get " + ot); }), std::chrono::milliseconds(2000)) << "a read waited for the write lock";
  EXPECT_EQ(read["ok"], true) << read.dump();
  const std::vector<base::Json> mixed = live.batch({"amend-trade " + ot + " quantity=7", "get 1"});
  EXPECT_EQ(mixed[0]["ok"], false) << "a write needs the lock";
  EXPECT_TRUE(contains(mixed[0].value("error", ""), "none of it was applied")) << mixed[0].dump();
  EXPECT_EQ(mixed[1]["ok"], true) << "a read beside it is answered: " << mixed[1].dump();
  other.exec("ROLLBACK");
  EXPECT_EQ(live.run("get 1")["ok"], true);  // the lock is free: the other program's change is applied
  test::expect_same_as_fresh(live);  // trade ot has quantity 4321
}

// A bad row read again and again (another program's bad quote, a FAILED
// trade amended and still bad) keeps one reason, not one per reading: the
// store's table of reasons is as large as the rows that are bad now.
TEST(Hardening, BadRowsReadAgainKeepOneReasonEach) {
  Live live("100", 20, 2, "UPDATE outright_trade SET quantity = 'abc' WHERE id = (SELECT min(id) FROM outright_trade);");
  const std::string ot = std::to_string(test::first_id(live.store(), Kind::outright_trade));
  ASSERT_EQ(live.store().state(live.node(std::stoll(ot))).status, Status::failed);
  ChangeLog log(*live.db);
  const auto in_use = [&] { return live.store().errors.size() - live.store().free_errors.size(); };
  const std::size_t before = in_use();
  for (int k = 1; k <= 50; ++k) {
    test::apply_other_program(live, log, "INSERT OR REPLACE INTO bond_quote VALUES (4, -" + std::to_string(k) + ")");
    const base::Json amended = live.run("amend-trade " + ot + " trade_price=" + std::to_string(90 + k));
    EXPECT_EQ(amended["ok"], true) << amended.dump();
  }
  EXPECT_EQ(live.store().state(live.node(4)).status, Status::failed);
  EXPECT_NE(live.store().errors[live.store().bonds[live.node(4).index].quote_error].find("-50"), std::string::npos);
  EXPECT_EQ(live.store().state(live.node(std::stoll(ot))).status, Status::failed);
  EXPECT_LE(live.store().errors.size(), before + 2) << "a reason kept per reading";
  EXPECT_EQ(in_use(), before + 1) << "the trade's reason and the quote's";
  test::apply_other_program(live, log, "INSERT OR REPLACE INTO bond_quote VALUES (4, 99)");
  EXPECT_EQ(in_use(), before) << "a mended quote's reason is released";
  test::expect_same_as_fresh(live);
}

// A trade's sizes and prices follow MODEL.md's rules alike in rows and in
// commands (one table of rules, model/store/trade_fields.h): quantity and notional
// positive whole numbers, trade_price and start_cash finite positive, a
// repo's rate any finite number. A row outside them is FAILED naming the
// field; a command that would set such a value is refused and changes nothing.
TEST(Hardening, TradeSizesAndPricesAreCheckedAlikeInRowsAndCommands) {
  Live live("100", 20, 2,
            "UPDATE outright_trade SET quantity = -5 WHERE id = (SELECT min(id) FROM outright_trade);"
            "UPDATE repo_trade SET start_cash = 0 WHERE id = (SELECT min(id) FROM repo_trade);");
  const Store& s = live.store();
  const std::int64_t ot = test::first_id(s, Kind::outright_trade), rt = test::first_id(s, Kind::repo_trade);
  EXPECT_EQ(s.state(live.node(ot)).status, Status::failed);
  EXPECT_NE(s.error(live.node(ot)).find("quantity -5 is not a positive whole number"), std::string::npos) << s.error(live.node(ot));
  EXPECT_EQ(s.state(live.node(rt)).status, Status::failed);
  EXPECT_NE(s.error(live.node(rt)).find("start_cash 0 is not a finite positive number"), std::string::npos) << s.error(live.node(rt));
  const std::int64_t ot2 = ot + 1, rt2 = rt + 1;
  ASSERT_EQ(s.state(live.node(ot2)).status, Status::ok);
  ASSERT_EQ(s.state(live.node(rt2)).status, Status::ok);
  const std::uint64_t digest = results_digest(s);
  const std::string o = "amend-trade " + std::to_string(ot2) + " ", r = "amend-trade " + std::to_string(rt2) + " ";
  for (const std::string& line : {o + "trade_price=-100", o + "quantity=-5", o + "quantity=0", o + "trade_price=0",
                                  r + "notional=0", r + "start_cash=-1", r + "notional=-3",
                                  std::string("add-outright bond_id=4 trade_price=99 quantity=-1 buy_sell=BUY")}) {
    const base::Json refused = live.run(line);
    EXPECT_EQ(refused["ok"], false) << line;
    EXPECT_TRUE(contains(refused.value("error", ""), "is not a")) << line << ": " << refused.dump();
  }
  EXPECT_EQ(results_digest(s), digest) << "a refused command changes nothing";
  EXPECT_EQ(live.run(r + "rate=-0.004")["ok"], true) << "a repo rate may be negative";
  test::expect_same_as_fresh(live);
}

// The 100 preset generated afresh, open for writing, with its change log.
struct LoggedDatabase {
  test::TempDir dir;
  std::string path = dir.path("c.db");
  bool generated = run_cli("generate --preset 100 --out " + path).exit_code == 0;
  base::Database db{path, base::Database::Mode::read_write};
  ChangeLog log{db};
};

TEST(Hardening, ChangesOfAnotherProgramAfterAFailedCommitAreStillSeen) {
  LoggedDatabase logged;
  ASSERT_TRUE(logged.generated);
  // A COMMIT that fails: a deferred foreign key left broken.
  logged.db.exec("PRAGMA foreign_keys = ON; CREATE TEMP TABLE parent (id INTEGER PRIMARY KEY); "
                 "CREATE TEMP TABLE child (parent_id INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED)");
  {
    ChangeLog::Transaction tx(logged.log);
    logged.db.exec("UPDATE outright_trade SET quantity = 5 WHERE id = (SELECT min(id) FROM outright_trade)");
    logged.log.consume();  // as applying other programs' changes does, before the batch's own at commit
    logged.db.exec("UPDATE outright_trade SET quantity = 6 WHERE id = (SELECT min(id) FROM outright_trade)");
    logged.db.exec("INSERT INTO child VALUES (1)");
    EXPECT_THROW(tx.commit(), std::runtime_error);
  }  // rolled back
  base::Database other(logged.path, base::Database::Mode::read_write);
  other.exec("UPDATE outright_trade SET quantity = 6 WHERE id = (SELECT max(id) FROM outright_trade)");
  EXPECT_TRUE(logged.log.pending());
  EXPECT_EQ(logged.log.changes().rows.size(), 1u);
}

// A transaction that ends without its commit (an exception's path) leaves
// what it consumed of the log unconsumed: another program's change is still
// pending and listed. One that commits consumes it for good.
TEST(Hardening, AChangeTransactionEndedWithoutCommitLeavesTheChangesPending) {
  LoggedDatabase logged;
  ASSERT_TRUE(logged.generated);
  base::Database(logged.path, base::Database::Mode::read_write)
      .exec("UPDATE outright_trade SET quantity = 7 WHERE id = (SELECT max(id) FROM outright_trade)");
  ASSERT_TRUE(logged.log.pending());
  {
    ChangeLog::Transaction tx(logged.log);
    logged.log.consume();
    EXPECT_FALSE(logged.log.pending());
  }  // no commit
  EXPECT_TRUE(logged.log.pending());
  EXPECT_EQ(logged.log.changes().rows.size(), 1u);
  {
    ChangeLog::Transaction tx(logged.log);
    logged.log.consume();
    tx.commit();
  }
  EXPECT_FALSE(logged.log.pending());
  EXPECT_TRUE(logged.log.changes().rows.empty());
}

// A database an older engine prepared keeps its change-log triggers, which
// skipped the engine's writes by a row of engine_writing. This version's
// log replaces them and drops the table: another program's update is
// recorded once (its old and new row), not once by each version's triggers.
TEST(Hardening, AnOlderVersionsChangeTriggersAreReplaced) {
  test::TempDir dir;
  const std::string path = dir.path("c.db");
  ASSERT_EQ(run_cli("generate --preset 100 --out " + path).exit_code, 0);
  const auto count = [](base::Database& db, const std::string& sql) {
    base::Statement st = db.prepare(sql);
    st.step();
    return st.integer(0);
  };
  {
    base::Database older(path, base::Database::Mode::read_write);
    older.exec(
        "CREATE TABLE engine_writing (writing INTEGER);"
        "CREATE TABLE input_change (seq INTEGER PRIMARY KEY AUTOINCREMENT, tbl TEXT NOT NULL, node_id INTEGER);"
        "CREATE TRIGGER outright_trade_UPDATE_change_v3 AFTER UPDATE ON outright_trade "
        "WHEN NOT EXISTS (SELECT 1 FROM engine_writing) BEGIN "
        "INSERT INTO input_change (tbl, node_id) VALUES ('outright_trade', OLD.id); "
        "INSERT INTO input_change (tbl, node_id) VALUES ('outright_trade', NEW.id); END");
  }
  base::Database db(path, base::Database::Mode::read_write);
  ChangeLog log(db);
  EXPECT_EQ(count(db, "SELECT count(*) FROM sqlite_schema WHERE type = 'trigger' AND name LIKE '%_change_v3'"), 0);
  EXPECT_FALSE(db.has_table("engine_writing"));
  base::Database(path, base::Database::Mode::read_write)
      .exec("UPDATE outright_trade SET quantity = 8 WHERE id = (SELECT min(id) FROM outright_trade)");
  EXPECT_EQ(count(db, "SELECT count(*) FROM input_change"), 2) << "one row for the old and one for the new, once";
  EXPECT_EQ(log.changes().rows.size(), 1u);
}

TEST(Hardening, AFullDiskFailsTheBatchAndLeavesTheModelAsTheDatabaseIs) {
  Live live("100", 20);
  const std::string bond = std::to_string(test::first_id(live.store(), Kind::bond));
  const std::string add = "add-outright bond_id=" + bond + " trade_price=99 quantity=1 buy_sell=BUY";
  live.fill_disk(add);
  const std::vector<base::Json> replies = live.batch(std::vector<std::string>(400, add));
  EXPECT_EQ(replies.front()["ok"], false);
  EXPECT_TRUE(contains(replies.front().value("error", ""), "full")) << replies.front().dump();
  test::expect_same_as_fresh(live);
}

TEST(Hardening, ANewTradeGetsNoIdPastTheLargestOne) {
  Live live("tiny", 4, 2, "INSERT INTO repo_book VALUES (9223372036854775807, 'BIG');");
  const base::Json r = live.run("add-outright bond_id=" + std::to_string(test::first_id(live.store(), Kind::bond)) +
                                " trade_price=99 quantity=1 buy_sell=BUY");
  EXPECT_EQ(r["ok"], false);
  EXPECT_TRUE(contains(r.value("error", ""), "no id is left")) << r.dump();
}

TEST(Hardening, ANameMustNotBeEmptyOrLookLikeAnId) {
  Live live("tiny", 4);
  const std::string ot = std::to_string(test::first_id(live.store(), Kind::outright_trade));
  for (const std::string name : {"1", "", "007"}) {
    const base::Json r = live.run("amend-trade " + ot + " name=" + name);
    EXPECT_EQ(r["ok"], false) << name;
    EXPECT_TRUE(contains(r.value("error", ""), "is not a name")) << r.dump();
  }
  EXPECT_EQ(live.run("amend-trade " + ot + " name=OT_X1")["ok"], true);
}

TEST(Hardening, FlagsBeatTheEnvironmentAndDbImpliesItsSocket) {
  char db_flag[] = "--db", db_path[] = "/srv/a.db", socket_flag[] = "--socket", socket_path[] = "/srv/s.sock";
  char* flags_db[] = {db_flag, db_path};
  const base::CommandSpec spec{"send", "", "", {{"db", "PATH", ""}, {"socket", "PATH", ""}}};
  const base::ParsedArgs with_db = base::parse_args(spec, flags_db);
  auto env = [](const char* key) -> const char* {
    return std::string_view(key) == "CONTROL_SOCKET" ? "/srv/other.sock" : nullptr;
  };
  EXPECT_EQ(control_socket(load_settings(with_db, env)), "/srv/a.db.sock");
  char* flags_both[] = {db_flag, db_path, socket_flag, socket_path};
  EXPECT_EQ(control_socket(load_settings(base::parse_args(spec, flags_both), env)), "/srv/s.sock");
  EXPECT_EQ(control_socket(load_settings(base::parse_args(spec, {}), env)), "/srv/other.sock");
}

TEST(Hardening, SmallMistakesGetOneClearLine) {
  test::TempDir dir;
  const test::CliResult conf_dir = run_cli("run --conf " + dir.path(""));
  EXPECT_EQ(conf_dir.exit_code, 2);
  EXPECT_TRUE(contains(conf_dir.err, "is a directory")) << conf_dir.err;
  const test::CliResult newline = run_cli("run --threads $'1\\n2'");
  EXPECT_EQ(newline.exit_code, 2);
  EXPECT_EQ(std::count(newline.err.begin(), newline.err.end(), '\n'), 1) << newline.err;
  ASSERT_EQ(run_cli("generate --preset tiny --out " + dir.path("t.db")).exit_code, 0);
  const test::CliResult empty = run_cli("show --db " + dir.path("t.db") + " ''");
  EXPECT_EQ(empty.exit_code, 1);
  EXPECT_TRUE(contains(empty.err, "no calendar, curve, bond, trade or book has the id or name ''")) << empty.err;
}

TEST(Hardening, GenerateTouchesNoFileButItsOwnAndCreatesOwnerOnlyFiles) {
  test::TempDir dir;
  std::ofstream(dir.path("x.db.tmp")) << "someone else's\n";
  ASSERT_EQ(run_cli("generate --preset tiny --out " + dir.path("x.db")).exit_code, 0);
  EXPECT_EQ(test::slurp(dir.path("x.db.tmp")), "someone else's\n");
  ASSERT_EQ(run_cli("run --batch --db " + dir.path("x.db")).exit_code, 0);
  for (const char* file : {"x.db", "x.results.db"}) {
    struct stat st {};
    ASSERT_EQ(stat(dir.path(file).c_str(), &st), 0) << file;
    EXPECT_EQ(st.st_mode & 0777, 0600u) << file;
  }
}

TEST(Hardening, ASymlinkPlantedAtTheSocketLockIsNotFollowed) {
  test::TempDir dir;
  ASSERT_EQ(run_cli("generate --preset tiny --out " + dir.path("y.db")).exit_code, 0);
  std::filesystem::create_symlink(dir.path("target"), dir.path("y.sock.lock"));
  const test::CliResult r = run_cli("run --threads 0 --db " + dir.path("y.db") + " --socket " + dir.path("y.sock"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.err, "cannot open " + dir.path("y.sock") + ".lock")) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path("target"))) << "the symlink's target was created";
}

TEST(Hardening, AGoneStderrReaderAndSighupDoNotKillTheEngine) {
  test::TempDir dir;
  const std::string db = dir.path("h.db"), sock = dir.path("h.sock");
  ASSERT_EQ(run_cli("generate --preset tiny --out " + db).exit_code, 0);
  // The engine's standard error goes to a pipe whose reader exits after one byte.
  const std::string start = "'" + std::string(std::getenv("BOND_RISK_BIN")) + "' run --threads 0 --db " + db +
                            " --socket " + sock + " 2>&1 >/dev/null | head -c 1 >/dev/null & echo $! > " +
                            dir.path("pid");
  std::ofstream(dir.path("start.sh")) << start << "\n";
  ASSERT_EQ(std::system(("bash " + dir.path("start.sh")).c_str()), 0);
  bool up = false;
  for (int i = 0; i < 200 && !up; ++i) {
    up = contains(run_cli("send --socket " + sock + " stats").out, "\"ok\":true");
    if (!up) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_TRUE(up);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the reader has gone
  base::Database(db, base::Database::Mode::read_write).exec("UPDATE outright_trade SET quantity = 4242 WHERE id = 10");
  std::system(("pkill -HUP -f 'run --threads 0 --db " + db + "'").c_str());  // SIGHUP: re-read, and log a line
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const test::CliResult got = run_cli("send --socket " + sock + " get 10");
  EXPECT_TRUE(contains(got.out, "\"ok\":true")) << "the engine died: " << got.err;
  EXPECT_TRUE(contains(got.out, "\"quantity\"") || contains(got.out, "\"pv\"")) << got.out;
  run_cli("send --socket " + sock + " shutdown");
}

TEST(Hardening, AtTheDescriptorLimitTheEngineBacksOffServesAgainAndStops) {
  test::TempDir dir;
  const std::string db = dir.path("f.db"), sock = dir.path("f.sock");
  ASSERT_EQ(run_cli("generate --preset tiny --out " + db).exit_code, 0);
  const std::string start = "prlimit --nofile=48:48 '" + std::string(std::getenv("BOND_RISK_BIN")) +
                            "' run --threads 0 --db " + db + " --socket " + sock + " > " + dir.path("log") +
                            " 2>&1 & echo $! > " + dir.path("pid");
  std::ofstream(dir.path("start.sh")) << start << "\n";
  ASSERT_EQ(std::system(("bash " + dir.path("start.sh")).c_str()), 0);
  const pid_t pid = std::stoi(test::slurp(dir.path("pid")));
  bool up = false;
  for (int i = 0; i < 200 && !up; ++i) {
    up = contains(run_cli("send --socket " + sock + " stats").out, "\"ok\":true");
    if (!up) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_TRUE(up) << test::slurp(dir.path("log"));
  auto cpu_ticks = [&] {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string field;
    long ticks = 0;
    for (int i = 1; i <= 15 && stat >> field; ++i) {
      if (i == 14 || i == 15) ticks += std::stol(field);
    }
    return ticks;
  };
  std::vector<base::UniqueFd> idle;
  for (int i = 0; i < 60; ++i) idle.push_back(base::connect_unix(sock));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const long before = cpu_ticks();
  std::this_thread::sleep_for(std::chrono::seconds(1));
  EXPECT_LT(cpu_ticks() - before, 30) << "the engine spins at the descriptor limit";  // < 0.3 s of CPU in 1 s
  idle.clear();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_TRUE(contains(run_cli("send --socket " + sock + " get 10").out, "\"ok\":true"));
  // At the limit again, SIGTERM stops it: its cancelled back-off once accepted on the closed listener, forever.
  for (int i = 0; i < 60; ++i) idle.push_back(base::connect_unix(sock));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  kill(pid, SIGTERM);
  auto running = [&] {  // a zombie nobody reaps has stopped too
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string pid_field, name, state;
    return stat >> pid_field >> name >> state && state != "Z";
  };
  for (int i = 0; i < 100 && running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(running()) << "SIGTERM at the descriptor limit did not stop the engine\n" << test::slurp(dir.path("log"));
  kill(pid, SIGKILL);
}

TEST(Hardening, ASymlinkAtTheResultsDatabaseIsRefusedAndNothingIsCreated) {
  test::TempDir dir;
  const std::string db = dir.path("z.db"), results = dir.path("z.results.db"), elsewhere = dir.path("elsewhere");
  ASSERT_EQ(run_cli("generate --preset tiny --out " + db).exit_code, 0);
  for (const char* suffix : {"", "-wal"}) {  // the database, or its WAL, names another file
    for (const auto& [command, file] : {std::pair{"run --batch", results}, {"scenarios", dir.path("z.scenarios.db")}}) {
      std::filesystem::create_symlink(elsewhere, file + suffix);
      const test::CliResult r = run_cli(std::string(command) + " --db " + db);
      EXPECT_EQ(r.exit_code, 1) << command << suffix;
      EXPECT_TRUE(contains(r.err, file + suffix + " is a symbolic link")) << command << suffix << ": " << r.err;
      EXPECT_TRUE(contains(r.err, "rm " + file + suffix)) << r.err;
      EXPECT_FALSE(std::filesystem::exists(elsewhere)) << command << suffix << " created the file the link names";
      EXPECT_TRUE(std::filesystem::is_symlink(file + suffix)) << command << suffix << " removed the link";
      std::filesystem::remove(file + suffix);
    }
  }
  // The engine serves on and says why it writes no results.
  std::filesystem::create_symlink(elsewhere, results);
  test::EngineProcess engine(db, dir.path("z.sock"), dir.path("engine.log"));
  ASSERT_TRUE(engine.ready()) << test::slurp(dir.path("engine.log"));
  const auto stats = [&] { return run_cli("send --socket " + dir.path("z.sock") + " stats").out; };
  EXPECT_TRUE(test::eventually([&] { return contains(stats(), "is a symbolic link"); }, std::chrono::seconds(10)))
      << stats();
  EXPECT_FALSE(std::filesystem::exists(elsewhere));
}

TEST(Hardening, AResultsFileDeletedOrReplacedUnderTheEngineIsWrittenAgainWhole) {
  Live live("100", 20);
  ResultPublisher& results = live.executor->results();
  ASSERT_EQ(results.wait_written(), live.executor->served_event());
  const std::string path = results_path(live.path);
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);  // rm DB.results.db*
  EXPECT_EQ(results.written_as_of(), -1);  // it claimed the deleted file's event
  EXPECT_TRUE(contains(live.run("stats").value("results_recovering", ""), "deleted or replaced"));
  const std::string ot = std::to_string(test::first_id(live.store(), Kind::outright_trade));
  ASSERT_EQ(live.run("amend-trade " + ot + " quantity=7")["ok"], true);
  test::expect_result_tables_fresh(live);  // every row, not only the amendment's (it wrote on into the deleted file)
  EXPECT_FALSE(live.run("stats").contains("results_recovering"));

  // Another file put in its place, one SQLite cannot open: the writer replaces it, with every row.
  std::ofstream(path + ".new") << "not a database\n";
  std::filesystem::rename(path + ".new", path);
  EXPECT_EQ(results.written_as_of(), -1);
  ASSERT_EQ(live.run("amend-trade " + ot + " quantity=8")["ok"], true);
  test::eventually([&] { return results.written_as_of() == live.executor->served_event(); });
  EXPECT_EQ(results.last_error(), "");
  test::expect_result_tables_fresh(live);
}
