// The wire format (bond_risk/protocol/messages.h): lines decode as the
// engine's documented JSON says (hand-written lines, parsed independently by
// nlohmann), and the clients spell no member of the engine's replies.
#include <gtest/gtest.h>

#include <filesystem>

#include <regex>
#include <set>

#include "bond_risk/model/store/published_values.h"
#include "bond_risk/protocol/messages.h"
#include "tests/test_support.h"

using namespace bond_risk;

namespace {

// Every member the protocol names, read from its header's declarations.
std::set<std::string> declared_members() {
  const std::string header = test::slurp(test::source_dir() + "/bond_risk/protocol/members.h");
  std::set<std::string> members;
  const std::regex declared(R"re(inline constexpr char \w+\[\] = "(\w+)")re");
  for (auto it = std::sregex_iterator(header.begin(), header.end(), declared); it != std::sregex_iterator(); ++it) {
    members.insert((*it)[1]);
  }
  return members;
}

}  // namespace

TEST(Protocol, ALineIsAReplyAnUpdateOrAnAlertWithTheEventItReflects) {
  const protocol::Line ok = protocol::decode_line(R"({"ok":true,"books":[],"event":7})");
  EXPECT_EQ(ok.kind, protocol::Line::Kind::reply);
  EXPECT_TRUE(ok.ok);
  EXPECT_EQ(ok.event, 7);
  EXPECT_TRUE(ok.body.contains("books"));

  const protocol::Line refused = protocol::decode_line(R"({"ok":false,"error":"no calendar, curve, bond, trade or book has the id or name 'x'"})");
  EXPECT_FALSE(refused.ok);
  EXPECT_EQ(refused.error, "no calendar, curve, bond, trade or book has the id or name 'x'");
  EXPECT_EQ(refused.event, std::nullopt);

  const protocol::Line update = protocol::decode_line(R"({"update":{"id":5,"pv":1.5},"event":9})");
  EXPECT_EQ(update.kind, protocol::Line::Kind::update);
  EXPECT_EQ(update.event, 9);
  EXPECT_EQ(update.body, base::Json::parse(R"({"id":5,"pv":1.5})"));

  const protocol::Line alert = protocol::decode_line(R"({"alert":{"id":3,"seq":8,"to":"BREACHED"},"event":8})");
  EXPECT_EQ(alert.kind, protocol::Line::Kind::alert);
  EXPECT_EQ(alert.body.at("to"), "BREACHED");

  EXPECT_THROW(protocol::decode_line("[1,2]"), std::runtime_error);
  EXPECT_THROW(protocol::decode_line("{\"ok\":tru"), std::runtime_error);
}

TEST(Protocol, TheEnginesLinesSayWhatTheHeaderDocuments) {
  EXPECT_EQ(base::Json::parse(protocol::ok_line({{"id", 4}})), base::Json::parse(R"({"ok":true,"id":4})"));
  EXPECT_EQ(base::Json::parse(protocol::error_line("bad")), base::Json::parse(R"({"ok":false,"error":"bad"})"));
  EXPECT_EQ(base::Json::parse(protocol::update_line(R"({"id":5,"status":"OK"})", 12)),
            base::Json::parse(R"({"update":{"id":5,"status":"OK"},"event":12})"));
  const std::string alert = protocol::alert_line({{"id", 2}, {"seq", 41}, {"value", -3.5}}, 41);
  EXPECT_EQ(base::Json::parse(alert), base::Json::parse(R"({"alert":{"id":2,"seq":41,"value":-3.5},"event":41})"));
  for (const std::string& line : {protocol::ok_line(base::Json::object()), protocol::error_line("x"), alert}) {
    EXPECT_EQ(line.find('\n'), std::string::npos) << line;
  }
  // The watcher's in-place read agrees with the line parsed whole.
  EXPECT_EQ(protocol::alert_seq(alert), 41);
  EXPECT_EQ(protocol::alert_seq(R"({"ok":true,"seq":3})"), std::nullopt);
  EXPECT_EQ(protocol::alert_seq(protocol::update_line(R"({"id":1,"seq":2})", 3)), std::nullopt);
  EXPECT_TRUE(protocol::is_pushed_line(alert));
  EXPECT_FALSE(protocol::is_pushed_line(protocol::ok_line(base::Json::object())));
  EXPECT_TRUE(protocol::is_ok_line(protocol::ok_line(base::Json::object())));
  EXPECT_FALSE(protocol::is_ok_line(protocol::error_line("x")));
}

TEST(Protocol, TheFiguresCountTheBooksOfEitherKindInEveryStatus) {
  const base::Json stats = base::Json::parse(R"({"ok":true,
      "counts":{"bond":{"OK":100},"outright_book":{"OK":3,"FAILED":1},"repo_book":{"OK":2,"REMOVED":1}},
      "recalc_us":{"p50":12.5},"memory_kb":{"vm_peak":900,"vm_rss":800},"event":44,"results_as_of":40})");
  const protocol::EngineFigures f = protocol::decode_figures(stats);
  EXPECT_EQ(f.books, 7u);
  EXPECT_EQ(f.event, 44);
  EXPECT_EQ(f.results_as_of, 40);
  EXPECT_EQ(f.vm_rss_kb, 800);
  EXPECT_EQ(f.recalc_us.at("p50"), 12.5);

  const auto books = protocol::decode_books(base::Json::parse(R"({"ok":true,"books":[{"id":9,"name":"B","type":"repo_book"}]})"));
  ASSERT_EQ(books.size(), 1u);
  EXPECT_EQ(books[0].id, 9);
  EXPECT_EQ(books[0].name, "B");
  EXPECT_EQ(books[0].type, "repo_book");
  EXPECT_EQ(protocol::encode(books[0]), base::Json::parse(R"({"id":9,"name":"B","type":"repo_book"})"));
}

TEST(Protocol, TheBookValuesItNamesAreValuesBooksPublish) {
  std::set<std::string_view> published;
  for (const Kind kind : {Kind::outright_book, Kind::repo_book}) {
    for (const std::string_view name : value_names(kind)) published.insert(name);
  }
  for (const char* name : {protocol::member::pv, protocol::member::pv01, protocol::member::cs01, protocol::member::pnl,
                           protocol::member::margin, protocol::member::mtm_pnl}) {
    EXPECT_TRUE(published.count(name)) << name << " is no value a book publishes";
  }
}

TEST(Protocol, NeitherTheClientsNorTheEngineSpellAMemberOfItsLinesThemselves) {
  const std::set<std::string> members = declared_members();
  ASSERT_GT(members.size(), 20u);
  // The engine's clients: the gateway's feed, the benchmarks, send.
  // A member spelt as a literal where a line is built or read: a key
  // (["name"], {"name", value}) or a look-up (.value("name", ...), .at,
  // .contains, .find, .count).
  const std::regex literal(R"re(\["(\w+)"\]|\{"(\w+)", |\.(?:value|at|contains|find|count)\("(\w+)")re");
  // And the engine: its encoders (protocol/) and everything else of the
  // running engine (live/) name members by protocol/members.h alone.
  std::vector<std::string> files = {"bond_risk/web/engine_feed.cpp", "bond_risk/lab/event_series.cpp",
                                    "bond_risk/cli/bench_load_command.cpp", "bond_risk/cli/bench_events_command.cpp",
                                    "bond_risk/cli/send_command.cpp"};
  for (const char* folder : {"bond_risk/live", "bond_risk/protocol"}) {
    const std::filesystem::path root = test::source_dir();
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root / folder)) {
      if (entry.path().extension() == ".cpp") files.push_back(entry.path().lexically_relative(root).string());
    }
  }
  ASSERT_GT(files.size(), 20u);
  for (const std::string& file : files) {
    const std::string text = test::slurp(test::source_dir() + "/" + file);
    for (auto it = std::sregex_iterator(text.begin(), text.end(), literal); it != std::sregex_iterator(); ++it) {
      const std::string word = (*it)[1].matched ? (*it)[1] : (*it)[2].matched ? (*it)[2] : (*it)[3];
      // A flag's name ("events": --events) is no member, nor a name in a
      // table of functions by name ({"rates", rates}: bench-load's experiments).
      const std::size_t line_start = text.rfind('\n', static_cast<std::size_t>(it->position())) + 1;
      const std::string line = text.substr(line_start, text.find('\n', line_start) - line_start);
      if (line.find("a.get(\"" + word + "\"") != std::string::npos || line.find("{\"" + word + "\", \"") != std::string::npos ||
          line.find("{\"" + word + "\", " + word + "}") != std::string::npos) {
        continue;
      }
      EXPECT_FALSE(members.count(word)) << file << " spells the member \"" << word << "\" itself: " << line;
    }
  }
}

TEST(Protocol, TheDeskPagesColumnsAreMembersTheProtocolOrTheModelNames) {
  std::set<std::string> named = declared_members();
  for (std::size_t k = 0; k < kKindCount; ++k) {
    for (const std::string_view name : value_names(static_cast<Kind>(k))) named.emplace(name);
  }
  // The page's hand-written lists: the books table's columns and the positions table's cells.
  const std::string js = test::slurp(test::source_dir() + "/bond_risk/web/page/desk.js");
  std::vector<std::string> used;
  for (const char* list : {R"re(const FIELDS = \[([^\]]*)\])re", R"re(const NUMERIC = new Set\(\[([^\]]*)\]\))re"}) {
    std::smatch m;
    ASSERT_TRUE(std::regex_search(js, m, std::regex(list))) << "desk.js no longer has " << list;
    const std::string items = m[1];
    const std::regex quoted("'(\\w+)'");
    for (auto it = std::sregex_iterator(items.begin(), items.end(), quoted); it != std::sregex_iterator(); ++it) {
      used.push_back((*it)[1]);
    }
  }
  const std::regex cell(R"re(\['(\w+)', \(p\) => p\.(\w+)\.(\w+)\])re");
  std::size_t cells = 0;
  for (auto it = std::sregex_iterator(js.begin(), js.end(), cell); it != std::sregex_iterator(); ++it, ++cells) {
    for (int g = 1; g <= 3; ++g) used.push_back((*it)[g]);
  }
  EXPECT_GE(cells, 8u) << "desk.js's positions cells were not found";
  for (const std::string& name : used) EXPECT_TRUE(named.count(name)) << "desk.js reads '" << name << "', which no reply defines";
}
