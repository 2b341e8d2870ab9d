// The command table and parser (bond_risk/protocol/command.h): every command
// parses back from its formatted line, bad lines say what is wrong, and the
// table is the one place the commands are named.
#include <gtest/gtest.h>

#include <filesystem>

#include "bond_risk/protocol/command.h"
#include "tests/test_support.h"

using namespace bond_risk;

namespace {

// One command of each kind, with every kind of field value.
std::vector<Command> examples() {
  return {
      Change{BumpCurve{"GBP-GILT", -2.5}},
      Change{SetRate{"7", 3, 0.0425}},
      Change{SetCurve{"GBP-GILT", {0.01, 0.0125, 1e-5, 0.04}}},
      Change{RollDate{*parse_date("2026-01-02"), std::nullopt}},
      Change{RollDate{*parse_date("2026-01-02"), "LONDON"}},
      Change{AmendTrade{"42", {{"quantity", std::int64_t{300}}, {"buy_sell", Side{-1}}, {"trade_price", 99.125}}}},
      Change{AddTrade{Kind::repo_trade,
                      {{"bond_id", std::int64_t{4}}, {"end_date", Date{20600}}, {"notional", std::int64_t{100}},
                       {"start_cash", 1e4}, {"rate", 0.05}, {"buy_sell", Side{1}}, {"cash_ccy", std::string("EUR")}},
                      "RB_1"}},
      Change{AddTrade{Kind::outright_trade,
                      {{"bond_id", std::int64_t{4}}, {"trade_date", Date{20000}}, {"trade_price", 101.5},
                       {"quantity", std::int64_t{-7}}, {"buy_sell", Side{1}}},
                      std::nullopt}},
      Change{RemoveTrade{"OT_3"}},
      Change{SetPrices{{{"BOND_1", 99.875}, {"7", 101.0625}}}},
      Change{ClearPrice{"BOND_1"}},
      Change{StartDay{}},
      Change{SetLimit{"OB_1", "pv01", std::nullopt, std::nullopt, -5000.0, 5000.0}},
      Change{SetLimit{std::nullopt, "kr01", "GBP-GILT", 3, std::nullopt, 250.5}},
      Change{RemoveLimit{12}},
      Get{"BOND_1"},
      ShowBook{"OB_1"},
      TopPositions{"OB_1", 5},
      ListBooks{},
      Watch{{"OB_1", "42"}},
      Watch{{"limits"}},
      Unwatch{{}},
      RunScenario{"parallel+10bp"},
      ValueAtRisk{"historical"},
      Explain{},
      Explain{"OB_1"},
      ExplainEvents{"OB_1", 25},
      Limits{},
      Limits{"total"},
      Limits{std::nullopt, 12},
      Limits{"OB_1", 3},
      Stats{},
      RecentEvents{17},
      Reload{},
      Shutdown{},
  };
}

bool same_fields(const Fields& a, const Fields& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].column != b[i].column || a[i].value != b[i].value) return false;
  }
  return true;
}

}  // namespace

TEST(Commands, EveryCommandParsesBackFromItsLine) {
  std::vector<bool> seen(kCommandCount);
  for (const Command& command : examples()) {
    const std::string line = format_command(command);
    const Command parsed = parse_command(line);
    EXPECT_EQ(format_command(parsed), line);
    EXPECT_EQ(command_id(parsed), command_id(command)) << line;
    seen[static_cast<std::size_t>(command_id(command))] = true;
    if (const auto* amend = std::get_if<AmendTrade>(std::get_if<Change>(&parsed))) {
      EXPECT_TRUE(same_fields(amend->fields, std::get<AmendTrade>(std::get<Change>(command)).fields)) << line;
    }
    if (const auto* bump = std::get_if<BumpCurve>(std::get_if<Change>(&parsed))) {
      EXPECT_EQ(bump->bp, -2.5);
    }
    if (const auto* tick = std::get_if<SetPrices>(std::get_if<Change>(&parsed))) {
      EXPECT_EQ(tick->quotes, std::get<SetPrices>(std::get<Change>(command)).quotes) << line;
    }
  }
  for (std::size_t i = 0; i < kCommandCount; ++i) EXPECT_TRUE(seen[i]) << command_table()[i].name << " has no example";
  for (std::size_t i = 0; i < kCommandCount; ++i) EXPECT_EQ(static_cast<std::size_t>(command_table()[i].id), i);
}

TEST(Commands, TradeFieldsAreTypedByTheirColumn) {
  const Command c = parse_command("amend-trade 5 rate=0.031 end_date=2026-06-30 cash_ccy=GBP calendar_id=1");
  const Fields& f = std::get<AmendTrade>(std::get<Change>(c)).fields;
  ASSERT_EQ(f.size(), 4u);
  EXPECT_EQ(std::get<double>(f[0].value), 0.031);
  EXPECT_EQ(format_date(std::get<Date>(f[1].value)), "2026-06-30");
  EXPECT_EQ(std::get<std::string>(f[2].value), "GBP");
  EXPECT_EQ(std::get<std::int64_t>(f[3].value), 1);
  // A column of both trade tables has one type in both.
  for (const Column& c1 : input_table(Kind::outright_trade).columns) {
    if (const Column* c2 = input_table(Kind::repo_trade).find(c1.name)) {
      EXPECT_EQ(c1.type, c2->type) << c1.name;
    }
  }
}

TEST(Commands, AMoveMayBeSignedEitherWay) {
  for (const auto& [line, bp] : std::vector<std::pair<std::string, double>>{{"bump-curve X +5", 5}, {"bump-curve X -5", -5}, {"bump-curve X 5", 5}}) {
    const Command c = parse_command(line);
    EXPECT_EQ(std::get<BumpCurve>(std::get<Change>(c)).bp, bp) << line;
  }
}

TEST(Commands, ABadLineNamesWhatIsWrong) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "empty command"},
      {"   ", "empty command"},
      {"explode now", "unknown command 'explode' (commands: bump-curve, set-rate"},
      {"bump-curve X 1 2", "usage: bump-curve CURVE BP"},
      {"set-rate X 1.5 0.01", "IDX '1.5' is not a whole number"},
      {"set-rate X 1 inf", "VALUE 'inf' is not a finite number"},
      {"bump-curve X ++1", "BP '++1' is not a finite number"},
      {"bump-curve X +-1", "BP '+-1' is not a finite number"},
      {"bump-curve X +", "BP '+' is not a finite number"},
      {"roll-date 2026-13-01", "date '2026-13-01' is not a YYYY-MM-DD date"},
      {"amend-trade 5", "usage: amend-trade ID field=value..."},
      {"amend-trade 5 id=7", "unknown trade field 'id'"},
      {"add-outright bond_id=4 quantity=1 buy_sell=BUY", "add-outright needs trade_price=..."},
      {"add-repo bond_id=4 quantity=1", "unknown repo_trade field 'quantity'"},
      {"add-outright book=A book=B", "field book is given twice"},
      {"shutdown now", "usage: shutdown"},
      {"top-positions OB_1 0", "lists 1 to 1000 trades, not 0"},
      {"top-positions OB_1 20 5", "usage: top-positions BOOK [N]"},
  };
  for (const auto& [line, message] : cases) {
    try {
      parse_command(line);
      ADD_FAILURE() << "parsed: " << line;
    } catch (const CommandError& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << line << ": " << e.what();
    }
  }
}

TEST(Commands, TheReadmeTableIsTheCommandTable) {
  const std::string readme = test::slurp(test::source_dir() + "/README.md");
  EXPECT_NE(readme.find(commands_markdown()), std::string::npos)
      << "README.md's command table differs from the command table; replace it with:\n" << commands_markdown();
}

TEST(Commands, EachCommandNameIsWrittenInOneSourceFile) {
  // Outside tests, a command's name appears as a string literal only in the table.
  for (const CommandInfo& c : command_table()) {
    // "name", or a line starting with it for the hyphenated names no English text begins with.
    const std::string name(c.name);
    auto written_in = [&](const std::string& text) {
      return text.find("\"" + name + "\"") != std::string::npos ||
             (name.find('-') != std::string::npos && text.find("\"" + name + " ") != std::string::npos);
    };
    std::vector<std::string> files;
    for (const char* dir : {"base", "engine", "bond_risk"}) {
      for (const auto& entry : std::filesystem::recursive_directory_iterator(test::source_dir() + "/" + dir)) {
        if (written_in(test::slurp(entry.path().string()))) files.push_back(entry.path().string());
      }
    }
    ASSERT_EQ(files.size(), 1u) << c.name << " is written in " << files.size() << " files, first "
                                << (files.empty() ? "" : files[0]);
    EXPECT_TRUE(files[0].ends_with("bond_risk/protocol/command.cpp")) << files[0];
  }
}
