#include "bond_risk/db/bond_import.h"

#include <array>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <stdexcept>
#include <unordered_map>

#include "base/csv.h"
#include "bond_risk/db/convention_rows.h"
#include "bond_risk/db/input_schema.h"
#include "bond_risk/db/table_rows.h"
#include "bond_risk/model/inputs/bond_terms.h"
#include "bond_risk/model/inputs/input_tables.h"
#include "bond_risk/model/inputs/isin.h"

namespace bond_risk {

namespace {

enum Field { isin, name, coupon, maturity, dated_date, coupons_per_year, convention, calendar, curve, clean_quote };
constexpr std::array<std::string_view, 10> kFields = {"isin",       "name",       "coupon",   "maturity", "dated_date",
                                                       "coupons_per_year", "convention", "calendar", "curve", "clean_quote"};

// Where each field is in a line, from the header; clean_quote may be absent.
std::array<std::optional<std::size_t>, kFields.size()> read_header(const std::vector<std::string>& header) {
  std::array<std::optional<std::size_t>, kFields.size()> at;
  for (std::size_t c = 0; c < header.size(); ++c) {
    std::size_t f = 0;
    while (f < kFields.size() && kFields[f] != header[c]) ++f;
    if (f == kFields.size()) {
      throw std::runtime_error("the header names '" + header[c].substr(0, 40) + "', not a column of a bond list (" +
                               "isin, name, coupon, maturity, dated_date, coupons_per_year, convention, calendar, curve, clean_quote)");
    }
    if (at[f]) throw std::runtime_error("the header names " + header[c] + " twice");
    at[f] = c;
  }
  for (std::size_t f = 0; f + 1 < kFields.size(); ++f) {
    if (!at[f]) throw std::runtime_error("the header has no column " + std::string(kFields[f]));
  }
  return at;
}

std::optional<double> number(const std::string& text) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<std::int64_t> whole(const std::string& text) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

std::string quoted(const std::string& text) { return std::string(1, '\'').append(text.substr(0, 60)).append(1, '\''); }

// A node table's ids by name and by id, as text.
std::unordered_map<std::string, std::int64_t> ids_by_key(base::Database& db, const std::string& table) {
  std::unordered_map<std::string, std::int64_t> out;
  base::Statement st = db.prepare("SELECT id, name FROM " + table);
  while (st.step()) {
    out.emplace(std::string(st.text(1)), st.integer(0));
    out.emplace(std::to_string(st.integer(0)), st.integer(0));
  }
  return out;
}

// What the database already holds that a line is checked against.
struct Known {
  std::map<std::string, std::string> conventions;  // name -> why it is bad ("" if good)
  std::unordered_map<std::string, std::int64_t> calendars, curves, bond_names, isins;
};

Known known(base::Database& db) {
  Known k;
  for (const StoredConvention& c : read_conventions(db)) k.conventions.emplace(c.name, c.parsed.reason);
  k.calendars = ids_by_key(db, "calendar");
  k.curves = ids_by_key(db, "ir_curve");
  base::Statement bonds = db.prepare("SELECT id, name, isin FROM bond");
  while (bonds.step()) {
    k.bond_names.emplace(std::string(bonds.text(1)), bonds.integer(0));
    if (bonds.column_type(2) == SQLITE_TEXT) k.isins.emplace(std::string(bonds.text(2)), bonds.integer(0));
  }
  return k;
}

// A line made a bond row, or why it cannot be one.
struct Line {
  std::size_t number = 0;
  std::vector<std::string> fields;
  std::string problem;
  std::int64_t calendar = 0, curve = 0, coupons_per_year = 0;
  double coupon = 0;
  Date maturity = 0, dated = 0;
  std::optional<double> quote;
};

std::string check(Line& line, const std::array<std::optional<std::size_t>, kFields.size()>& at, const Known& k) {
  const auto field = [&](Field f) -> const std::string& {
    static const std::string none;
    return at[f] ? line.fields[*at[f]] : none;
  };
  if (std::string problem = isin_problem(field(isin)); !problem.empty()) return problem;
  if (const auto it = k.isins.find(field(isin)); it != k.isins.end()) {
    return "isin " + quoted(field(isin)) + " is already bond " + std::to_string(it->second) + "'s";
  }
  const std::string& n = field(name);
  if (n.empty() || n.find_first_not_of("0123456789") == std::string::npos) {
    return "name " + quoted(n) + " is empty or all digits (commands take an id or a name in one place)";
  }
  if (const auto it = k.bond_names.find(n); it != k.bond_names.end()) {
    return "name " + quoted(n) + " is already bond " + std::to_string(it->second) + "'s";
  }
  const std::optional<double> c = number(field(coupon));
  if (!c) return "coupon " + quoted(field(coupon)) + " is not a finite number (0.0425 is 4.25%)";
  line.coupon = *c;
  const std::optional<Date> m = parse_date(field(maturity)), d = parse_date(field(dated_date));
  if (!m) return "maturity " + quoted(field(maturity)) + " is not a YYYY-MM-DD date";
  if (!d) return "dated_date " + quoted(field(dated_date)) + " is not a YYYY-MM-DD date";
  line.maturity = *m, line.dated = *d;
  const std::optional<std::int64_t> f = whole(field(coupons_per_year));
  if (!f) return "coupons_per_year " + quoted(field(coupons_per_year)) + " is not a whole number";
  line.coupons_per_year = *f;
  if (std::string problem = bond_terms_problem(*d, *m, *f, "dated_date", "maturity"); !problem.empty()) return problem;
  const auto conv = k.conventions.find(field(convention));
  if (conv == k.conventions.end()) {
    std::string names;
    for (const auto& [name_, why] : k.conventions) names.append(names.empty() ? "" : ", ").append(name_);
    return "convention " + quoted(field(convention)) + " is not a row of bond_convention (" +
           (names.empty() ? "it has none" : names) + ")";
  }
  if (!conv->second.empty()) return conv->second;
  const auto cal = k.calendars.find(field(calendar));
  if (cal == k.calendars.end()) return "calendar " + quoted(field(calendar)) + " is not a calendar's name or id";
  line.calendar = cal->second;
  const auto crv = k.curves.find(field(curve));
  if (crv == k.curves.end()) return "curve " + quoted(field(curve)) + " is not an ir_curve's name or id";
  line.curve = crv->second;
  if (!field(clean_quote).empty()) {
    line.quote = number(field(clean_quote));
    if (!line.quote || *line.quote <= 0) return "clean_quote " + quoted(field(clean_quote)) + " is not a finite positive number";
  }
  return "";
}

std::int64_t largest_id(base::Database& db) {
  std::string sql = "SELECT max(m) FROM (";
  for (std::size_t k = 0; k < kKindCount; ++k) {
    sql += (k ? " UNION ALL " : "") + std::string("SELECT max(id) AS m FROM ") + std::string(kind_name(static_cast<Kind>(k)));
  }
  base::Statement st = db.prepare(sql + ")");
  st.step();
  return st.column_type(0) == SQLITE_NULL ? 0 : st.integer(0);
}

}  // namespace

std::size_t count_lines(std::istream& csv) {
  std::size_t n = 0;
  for (std::string line; std::getline(csv, line);) ++n;
  csv.clear();
  csv.seekg(0);
  return n;
}

BondImport import_bonds(base::Database& db, std::istream& csv, base::ProgressBar* progress) {
  upgrade_input_schema(db);
  BondImport out;
  std::string text;
  if (!std::getline(csv, text)) throw std::runtime_error("the file is empty: its first line must name the columns");
  const std::optional<std::vector<std::string>> header = base::csv_fields(text);
  if (!header) throw std::runtime_error("line 1 (the header) has an unclosed quote");
  const auto at = read_header(*header);
  base::Transaction tx(db, base::Transaction::Begin::immediate);  // what is checked stays so until the commit
  const Known k = known(db);
  std::vector<Line> lines;
  std::unordered_map<std::string, std::size_t> isins, names;  // in the file: the first line with each
  for (std::size_t number = 2; std::getline(csv, text); ++number) {
    if (progress) progress->advance();
    if (text.empty() || text == "\r") continue;
    Line& line = lines.emplace_back();
    line.number = number;
    ++out.lines;
    const std::optional<std::vector<std::string>> fields = base::csv_fields(text);
    if (!fields) {
      line.problem = "an unclosed quote";
    } else if (fields->size() != header->size()) {
      line.problem = std::to_string(fields->size()) + " fields, the header has " + std::to_string(header->size());
    } else {
      line.fields = *fields;
      line.problem = check(line, at, k);
      if (line.problem.empty()) {
        const std::string& i = line.fields[*at[isin]], &n = line.fields[*at[name]];
        if (const auto [it, fresh] = isins.emplace(i, number); !fresh) {
          line.problem = "isin " + quoted(i) + " is also line " + std::to_string(it->second) + "'s";
        } else if (const auto [it2, fresh2] = names.emplace(n, number); !fresh2) {
          line.problem = "name " + quoted(n) + " is also line " + std::to_string(it2->second) + "'s";
        }
      }
    }
    if (!line.problem.empty()) out.rejected.push_back("line " + std::to_string(number) + ": " + line.problem);
  }
  if (!out.imported()) return out;  // the transaction ends unwritten: nothing is imported

  base::Statement bond = db.prepare(insert_all(input_table(Kind::bond)));
  base::Statement quote = db.prepare(insert_all(input_table("bond_quote")));
  const InputTable& table = input_table(Kind::bond);
  std::int64_t id = largest_id(db);
  out.first_id = id + 1;
  for (const Line& line : lines) {
    if (progress) progress->advance();
    ++id;
    const auto col = [&](std::string_view c) { return table.index(c) + 1; };
    bond.bind(col("id"), id).bind(col("name"), std::string_view(line.fields[*at[name]]));
    bond.bind(col("calendar_id"), line.calendar).bind(col("ir_curve_id"), line.curve);
    bond.bind(col("start_date"), std::string_view(format_date(line.dated)));
    bond.bind(col("maturity_date"), std::string_view(format_date(line.maturity)));
    bond.bind(col("coupons_per_year"), line.coupons_per_year).bind(col("coupon"), line.coupon);
    bond.bind(col("convention"), std::string_view(line.fields[*at[convention]]));
    bond.bind(col("isin"), std::string_view(line.fields[*at[isin]])).run();
    if (line.quote) {
      quote.bind(1, id).bind(2, *line.quote).run();
      ++out.quotes;
    }
  }
  out.last_id = id;
  tx.commit();
  return out;
}

}  // namespace bond_risk
