// The small valid data sets the row and scenario fuzz targets start from, on
// top of schema/bond_risk.sql. tests/fuzz_data_test.cpp loads each under the
// current schema, so a schema change that breaks them fails `make test`, not
// only `make fuzz`.
#pragma once

namespace fuzz {

// Every input table but the optional quotes: a trad4 bond and a gilt on its
// convention and holidays, a trade, a repo and a book of each.
inline constexpr const char* kRowData = R"SQL(
INSERT INTO calendar VALUES (1, 'LONDON', '2025-01-01');
INSERT INTO ir_curve VALUES (2, 'FLAT', 'GBP');
INSERT INTO ir_curve_input_rate VALUES (2, 0, 0, 0.03), (2, 1, 7305, 0.04);
INSERT INTO calendar_holiday VALUES (1, '2025-04-18'), (1, '2025-04-21');
INSERT INTO bond_convention VALUES ('UK_GILT', 1, 'ACT/ACT-ICMA', 'FOLLOWING', 6, 'COMPOUNDED');
INSERT INTO bond (id, name, calendar_id, ir_curve_id, start_date, maturity_date, coupons_per_year, coupon)
  VALUES (10, 'B', 1, 2, '2020-01-01', '2030-01-01', 2, 0.05);
INSERT INTO bond VALUES (11, 'G', 1, 2, '2021-03-07', '2031-09-07', 2, 0.0425, 'UK_GILT', 'GB0009997999');
INSERT INTO outright_trade VALUES (100, 'OT', 10, '2024-06-01', 99.5, 100, 'BUY');
INSERT INTO repo_trade VALUES (200, 'RT', 10, 1, 2, '2024-12-01', '2025-04-01', 100, 10000.0, 0.04, 'GBP', 'SELL');
INSERT INTO outright_book VALUES (1000, 'OB');
INSERT INTO outright_book_trade VALUES (1000, 100);
INSERT INTO repo_book VALUES (2000, 'RB');
INSERT INTO repo_book_trade VALUES (2000, 200);
)SQL";

// A bond, a trade in a book, and scenario set 'f' of four scenarios (and one
// scenario of another set). Curve 3 is a target of shifts only.
inline constexpr const char* kScenarioData = R"SQL(
INSERT INTO calendar VALUES (1, 'LONDON', '2025-01-01');
INSERT INTO ir_curve VALUES (2, 'FLAT', 'GBP'), (3, 'STEEP', 'EUR');
INSERT INTO ir_curve_input_rate VALUES (2, 0, 0, 0.03), (2, 1, 7305, 0.04), (3, 0, 0, 0.01), (3, 5, 3652, 0.02);
INSERT INTO bond (id, name, calendar_id, ir_curve_id, start_date, maturity_date, coupons_per_year, coupon)
  VALUES (10, 'B', 1, 2, '2020-01-01', '2030-01-01', 2, 0.05);
INSERT INTO outright_trade VALUES (100, 'OT', 10, '2024-06-01', 99.5, 100, 'BUY');
INSERT INTO outright_book VALUES (1000, 'OB');
INSERT INTO outright_book_trade VALUES (1000, 100);
INSERT INTO scenario_set VALUES ('f', 'historical');
INSERT INTO scenario VALUES (1, 's1', 'f'), (2, 's2', 'f'), (3, 's3', 'f'), (4, 's4', 'f'), (5, 'other', 'g');
)SQL";

}  // namespace fuzz
