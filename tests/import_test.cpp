// `import bonds`: a desk's bond list validated line by line, imported whole
// or not at all, and picked up by a running engine as another program's
// change.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "base/csv.h"
#include "bond_risk/db/bond_import.h"
#include "tests/live_support.h"

using namespace bond_risk;

namespace {

constexpr const char* kHeader = "isin,name,coupon,maturity,dated_date,coupons_per_year,convention,calendar,curve,clean_quote\n";

std::int64_t bonds_in(base::Database& db) {
  base::Statement st = db.prepare("SELECT count(*) FROM bond");
  st.step();
  return st.integer(0);
}

}  // namespace

TEST(Csv, FieldsSplitAtCommasOutsideQuotes) {
  EXPECT_EQ(*base::csv_fields("a,b,,c\r"), (std::vector<std::string>{"a", "b", "", "c"}));
  EXPECT_EQ(*base::csv_fields("\"DBR 4, 2037\",\"say \"\"hi\"\"\",x"),
            (std::vector<std::string>{"DBR 4, 2037", "say \"hi\"", "x"}));
  EXPECT_EQ(*base::csv_fields(""), (std::vector<std::string>{""}));
  EXPECT_EQ(*base::csv_fields("a,"), (std::vector<std::string>{"a", ""}));
  EXPECT_FALSE(base::csv_fields("\"open,b"));
  EXPECT_FALSE(base::csv_fields("\"closed\"x,b"));
}

// Two real bonds of QuantLib's test-suite, the Bund of its asset-swap tests
// (DBR 4 01/04/37) and the gilt of its ex-coupon test (8% 2021, matured),
// imported into a running engine's database: after `reload` they are
// valued as a fresh load values them.
TEST(Import, ABondListGoesInWholeAndARunningEngineValuesIt) {
  test::Live live("100", 20, 2, "", Conventions::market);
  std::istringstream csv(std::string(kHeader) +
                         "DE0001135275,\"DBR 4, 2037\",0.04,2037-01-04,2005-01-04,1,BUND,TARGET,EUR-BUND,98.5\n"
                         "GB0009997999,UKT 8 06/07/21,0.08,2021-06-07,1996-02-29,2,UK_GILT,LONDON,4,\n");
  base::Database other(live.path, base::Database::Mode::read_write);  // another program's connection
  const std::int64_t before = bonds_in(other);
  const BondImport result = import_bonds(other, csv);
  ASSERT_TRUE(result.imported()) << (result.rejected.empty() ? "" : result.rejected.front());
  EXPECT_EQ(result.lines, 2u);
  EXPECT_EQ(result.quotes, 1u);
  EXPECT_EQ(result.last_id, result.first_id + 1);
  EXPECT_EQ(bonds_in(other), before + 2);

  ASSERT_EQ(live.run("reload")["ok"], true);
  const Store& s = live.store();
  const NodeRef bund = live.node(result.first_id);
  EXPECT_EQ(s.state(bund).status, Status::ok);
  EXPECT_EQ(s.bonds[bund.index].quote, 98.5);
  EXPECT_EQ(s.conventions[s.bonds[bund.index].convention].name, "BUND");
  EXPECT_FALSE(is_null(s.bond_figures[bund.index].quote_yield));
  EXPECT_EQ(s.state(live.node(result.last_id)).status, Status::expired);
  test::expect_same_as_fresh(live);
}

// The README's example list (data/example_bonds.csv: gilts, Treasuries and
// Bunds to 2057, each row from a source named in the README) goes into a
// market database whole, and every bond of it is valued OK, settling on
// its convention's day, as a fresh load values it.
TEST(Import, TheExampleListImportsWholeAndEveryBondIsValued) {
  test::Live live("100", 20, 2, "", Conventions::market);
  std::ifstream csv(test::source_dir() + "/data/example_bonds.csv");
  ASSERT_TRUE(csv) << "data/example_bonds.csv is missing";
  base::Database other(live.path, base::Database::Mode::read_write);
  const BondImport result = import_bonds(other, csv);
  ASSERT_TRUE(result.imported()) << (result.rejected.empty() ? "" : result.rejected.front());
  EXPECT_EQ(result.lines, 8u);
  ASSERT_EQ(live.run("reload")["ok"], true);
  const Store& s = live.store();
  for (std::int64_t id = result.first_id; id <= result.last_id; ++id) {
    const NodeRef bond = live.node(id);
    ASSERT_EQ(s.state(bond).status, Status::ok) << "bond " << id;
    const Bond& b = s.bonds[bond.index];
    const Calendar& calendar = s.calendars[b.calendar];
    const Convention& convention = *s.conventions[b.convention].parsed.convention;
    EXPECT_EQ(s.bond_figures[bond.index].settlement_date,
              calendar.business_days.advance(calendar.today, convention.settlement_days));
    EXPECT_TRUE(std::isfinite(s.bond_figures[bond.index].yield)) << "bond " << id;
  }
  test::expect_same_as_fresh(live);
}

TEST(Import, EveryBadLineIsNamedWithWhyAndNothingIsImported) {
  test::Live live("100", 20, 1, "", Conventions::market);
  base::Database db(live.path, base::Database::Mode::read_write);
  const std::int64_t before = bonds_in(db);
  std::istringstream csv(std::string(kHeader) +
                         "DE0001135275,GOOD,0.04,2037-01-04,2005-01-04,1,BUND,TARGET,EUR-BUND,\n"          // 2
                         "GB0009997998,BADCHECK,0.04,2037-01-04,2005-01-04,2,UK_GILT,LONDON,GBP-GILT,\n"   // 3
                         "DE0004771662,NOCONV,0.04,2037-01-04,2005-01-04,1,JGB,TARGET,EUR-BUND,\n"         // 4
                         "IT0001200390,BACKWARDS,0.04,2005-01-04,2037-01-04,1,BUND,TARGET,EUR-BUND,\n"     // 5
                         "DE0001135275,SAMEISIN,0.04,2037-01-04,2005-01-04,1,BUND,TARGET,EUR-BUND,\n"      // 6
                         "IT0003543847,GOOD,0.04,2037-01-04,2005-01-04,1,BUND,TARGET,EUR-BUND,\n"          // 7
                         "IT0006527060,PCT,4%,2037-01-04,2005-01-04,1,BUND,TARGET,EUR-BUND,\n"             // 8
                         "XS0090566539,SLASHED,0.04,04/01/2037,2005-01-04,1,BUND,TARGET,EUR-BUND,\n"       // 9
                         "XS0218766664,MONTHLY,0.04,2037-01-04,2005-01-04,12,BUND,TARGET,EUR-BUND,\n"      // 10
                         "XS0228052402,NOCAL,0.04,2037-01-04,2005-01-04,1,BUND,TOKYO,EUR-BUND,\n"          // 11
                         "AU300TB01208,NOCURVE,0.04,2037-01-04,2005-01-04,1,BUND,TARGET,JPY,\n"            // 12
                         "GB0009997999,FREE,0.04,2037-01-04,2005-01-04,2,UK_GILT,LONDON,GBP-GILT,0\n"      // 13
                         "GB0009997999,SHORT,0.04,2037-01-04\n"                                            // 14
                         "GB0009997999,\"OPEN,0.04\n"                                                      // 15
                         "GB0009997999,BOND_7,0.04,2037-01-04,2005-01-04,2,UK_GILT,LONDON,GBP-GILT,\n");   // 16
  const BondImport result = import_bonds(db, csv);
  EXPECT_FALSE(result.imported());
  EXPECT_EQ(result.lines, 15u);
  const std::vector<std::string> expected = {
      "line 3: isin 'GB0009997998': check digit 8, not 9 (ISO 6166's Luhn checksum)",
      "line 4: convention 'JGB' is not a row of bond_convention (BUND, UK_GILT, US_TREASURY)",
      "line 5: maturity 2005-01-04 is not after dated_date 2037-01-04",
      "line 6: isin 'DE0001135275' is also line 2's",
      "line 7: name 'GOOD' is also line 2's",
      "line 8: coupon '4%' is not a finite number (0.0425 is 4.25%)",
      "line 9: maturity '04/01/2037' is not a YYYY-MM-DD date",
      "line 10: coupons_per_year 12 is not 1, 2 or 4",
      "line 11: calendar 'TOKYO' is not a calendar's name or id",
      "line 12: curve 'JPY' is not an ir_curve's name or id",
      "line 13: clean_quote '0' is not a finite positive number",
      "line 14: 4 fields, the header has 10",
      "line 15: an unclosed quote",
      "line 16: name 'BOND_7' is already bond 7's",
  };
  EXPECT_EQ(result.rejected, expected);
  EXPECT_EQ(bonds_in(db), before) << "nothing imported";

  std::istringstream no_curve("isin,name,coupon,maturity,dated_date,coupons_per_year,convention,calendar\n");
  EXPECT_THROW(import_bonds(db, no_curve), std::runtime_error);
  std::istringstream unknown(std::string("isin,name,colour\n"));
  try {
    import_bonds(db, unknown);
    ADD_FAILURE() << "an unknown column was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("the header names 'colour', not a column of a bond list"), std::string::npos);
  }
}
