#include "bond_risk/synth/generator.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include <chrono>
#include <span>

#include "bond_risk/model/conventions/convention_figures.h"
#include "bond_risk/model/inputs/isin.h"
#include "bond_risk/model/pricing/dates.h"
#include "bond_risk/synth/holiday_rules.h"
#include "bond_risk/model/pricing/status.h"
#include "base/progress.h"
#include "bond_risk/synth/limit_generator.h"
#include "bond_risk/synth/random.h"
#include "bond_risk/synth/scenario_generator.h"
#include "bond_risk/db/input_schema.h"
#include "bond_risk/db/table_rows.h"
#include "bond_risk/model/pricing/coupon_grid.h"
#include "bond_risk/model/inputs/input_tables.h"
#include "bond_risk/model/quotes/quote_analytics.h"
#include "base/sqlite.h"

namespace bond_risk {

const std::vector<Preset>& presets() {
  static const std::vector<Preset> list = {
      {"tiny", 6, 10, 10},
      {"100", 10, 44, 44},
      {"50k", 5'000, 22'500, 22'500},
      {"220k", 20'000, 100'000, 100'000},
      {"440k", 40'000, 200'000, 200'000},
      {"1M", 80'000, 460'000, 460'000},
      {"10M", 1'000'000, 4'500'000, 4'500'000, 10'000, 20},  // for bond_risk_mpi --split books
  };
  return list;
}

const Preset& find_preset(const std::string& name) {
  std::string known;
  for (const Preset& p : presets()) {
    if (p.name == name) return p;
    known += (known.empty() ? "" : ", ") + p.name;
  }
  throw std::invalid_argument("unknown preset '" + name + "' (presets: " + known + ")");
}

namespace {

constexpr std::array<int, 12> kCurveDays = {0, 30, 91, 182, 365, 730, 1095, 1826, 2557, 3652, 5479, kNumForwardDays};
// The market mix's curves reach 60 years: a 50-year bond and a year of repos past it.
constexpr std::array<int, 16> kMarketCurveDays = {0,    30,   91,   182,  365,   730,   1095,  1826,
                                                  2557, 3652, 5479, 7305, 10957, 14610, 18262, kMaxForwardDays};
constexpr int kLongestMaturity = 18262;  // 50 years

// One curve of a data set and the market its bonds trade in: calendar,
// convention (docs/model.md's table of common conventions) and coupons a
// year. The trad4 presets use the curves only, on one calendar.
struct MarketDef {
  const char* curve;
  const char* ccy;
  const char* calendar;
  HolidayRules rules;
  const char* convention;
  ConventionRow row;
  int coupons_per_year;
  const char* isin_country;
};
const std::array<MarketDef, 2> kTrad4 = {{
    {"GBP-GILT", "GBP", "LONDON", HolidayRules::england_and_wales, "", {}, 0, ""},
    {"EUR-BUND", "EUR", "LONDON", HolidayRules::england_and_wales, "", {}, 0, ""},
}};
const std::array<MarketDef, 3> kMarkets = {{
    {"GBP-GILT", "GBP", "LONDON", HolidayRules::england_and_wales, "UK_GILT",
     {"UK_GILT", 1, 6, "ACT/ACT-ICMA", "FOLLOWING", "COMPOUNDED"}, 2, "GB"},
    {"USD-UST", "USD", "NEW_YORK", HolidayRules::us_government_bond, "US_TREASURY",
     {"US_TREASURY", 1, 0, "ACT/ACT-ICMA", "FOLLOWING", "COMPOUNDED"}, 2, "US"},
    {"EUR-BUND", "EUR", "TARGET", HolidayRules::target, "BUND",
     {"BUND", 2, 0, "ACT/ACT-ICMA", "FOLLOWING", "SIMPLE_IN_LAST_PERIOD"}, 1, "DE"},
}};

std::span<const MarketDef> markets_of(Conventions conventions) {
  if (conventions == Conventions::market) return kMarkets;
  return kTrad4;
}

// A new owner-only file of our own beside `path` (nothing that was there is
// touched), removed when this ends unless renamed to `path` by commit().
class TempFile {
 public:
  explicit TempFile(const std::string& path) : target_(path), path_(path + ".XXXXXX") {
    const int fd = ::mkstemp(path_.data());
    if (fd < 0) throw std::runtime_error("cannot create a file beside " + path + ": " + std::strerror(errno));
    ::close(fd);
  }
  ~TempFile() {
    if (!committed_) std::remove(path_.c_str());
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }
  void commit() {
    if (std::rename(path_.c_str(), target_.c_str()) != 0) {
      throw std::runtime_error("cannot rename " + path_ + " to " + target_ + ": " + std::strerror(errno));
    }
    committed_ = true;
  }

 private:
  std::string target_, path_;
  bool committed_ = false;
};

class Writer {
 public:
  Writer(const Preset& preset, const GenerateOptions& options, base::Database& db)
      : preset_(preset), options_(options), db_(db), rng_(options.seed), markets_(markets_of(options.conventions)),
        market_(options.conventions == Conventions::market) {}

  void run() {
    const std::size_t total = preset_.bonds + 2 * (preset_.outright_trades + preset_.repo_trades);
    base::ProgressBar progress("Generating " + preset_.name, total);
    progress_ = &progress;
    calendar_and_curves();
    if (market_) conventions();
    bonds();
    quotes();
    outright_trades();
    repo_trades();
    books(Kind::outright_book, "OB", outright_by_curve_);
    books(Kind::repo_book, "RB", repo_by_curve_);
    generate_scenario_sets(db_, options_.seed);
  }

 private:
  std::int64_t new_id() { return next_id_++; }
  void tick() { progress_->advance(); }

  // One calendar per market (the trad4 presets': LONDON, no holidays), then the curves.
  void calendar_and_curves() {
    base::Statement cal = db_.prepare(insert_all(input_table(Kind::calendar)));
    base::Statement holiday = db_.prepare(insert_all(input_table("calendar_holiday")));
    const int year = static_cast<int>(std::chrono::year_month_day{std::chrono::sys_days{std::chrono::days{today_}}}.year());
    for (const MarketDef& m : markets_) {
      const auto named = std::find_if(markets_.begin(), markets_.end(),
                                      [&](const MarketDef& other) { return std::string_view(other.calendar) == m.calendar; });
      if (&*named != &m) {  // a calendar already written
        const auto shared = static_cast<std::size_t>(named - markets_.begin());
        calendar_ids_.push_back(calendar_ids_[shared]);
        if (market_) business_days_.push_back(business_days_[shared]);
        continue;
      }
      const std::int64_t id = new_id();
      calendar_ids_.push_back(id);
      cal.bind(1, id).bind(2, std::string_view(m.calendar)).bind(3, format_date(today_)).run();
      if (!market_) continue;
      // From the year before today (a first coupon's) to a year past the longest curve's.
      const std::vector<Date> dates = holidays(m.rules, year - 1, year + 61);
      for (Date d : dates) holiday.bind(1, id).bind(2, format_date(d)).run();
      business_days_.emplace_back(dates);  // for the quotes' settlement
    }
    base::Statement curve = db_.prepare(insert_all(input_table(Kind::ir_curve)));
    base::Statement rate = db_.prepare(insert_all(input_table("ir_curve_input_rate")));
    const std::span<const int> days = market_ ? std::span<const int>(kMarketCurveDays) : std::span<const int>(kCurveDays);
    for (const MarketDef& def : markets_) {
      const std::int64_t id = new_id();
      curve_ids_.push_back(id);
      curve.bind(1, id).bind(2, std::string_view(def.curve)).bind(3, std::string_view(def.ccy)).run();
      double value = rng_.uniform(0.01, 0.03);
      std::vector<CurvePoint>& points = curve_points_.emplace_back();
      for (std::size_t k = 0; k < days.size(); ++k) {
        rate.bind(1, id).bind(2, static_cast<std::int64_t>(k)).bind(3, std::int64_t{days[k]});
        rate.bind(4, Random::round_to(value, 1e-5)).run();
        points.push_back({days[k], Random::round_to(value, 1e-5)});
        value = std::clamp(value + rng_.uniform(-0.001, 0.005), 0.01, 0.06);
      }
    }
  }

  void conventions() {
    base::Statement st = db_.prepare(insert_all(input_table("bond_convention")));
    for (const MarketDef& m : markets_) {
      const ConventionRow& r = m.row;
      conventions_.push_back(*parse_convention(r).convention);
      st.bind(1, std::string_view(r.name)).bind(2, *r.settlement_days).bind(3, std::string_view(*r.day_count));
      st.bind(4, std::string_view(*r.payment_convention)).bind(5, *r.ex_dividend_days);
      st.bind(6, std::string_view(*r.yield_compounding)).run();
    }
  }

  void bonds() {
    base::Statement st = db_.prepare(insert_all(input_table(Kind::bond)));
    constexpr std::array<std::int64_t, 3> frequencies = {1, 2, 4};
    for (std::size_t i = 0; i < preset_.bonds; ++i) {
      const std::int64_t id = new_id();
      const std::size_t curve = i % markets_.size();
      const MarketDef& m = markets_[curve];
      bond_ids_.push_back(id);
      bond_curve_.push_back(curve);
      const Date maturity = today_ + static_cast<Date>(rng_.between(30, market_ ? kLongestMaturity : kNumForwardDays - 5));
      const Date start = today_ - static_cast<Date>(rng_.between(0, 3650));
      st.bind(1, id).bind(2, "BOND_" + std::to_string(id)).bind(3, calendar_ids_[curve]).bind(4, curve_ids_[curve]);
      st.bind(5, format_date(start)).bind(6, format_date(maturity));
      const std::int64_t frequency = market_ ? m.coupons_per_year : frequencies[rng_.between(0, 2)];
      const double coupon = Random::round_to(rng_.uniform(0.0, 0.08), 0.00125);
      st.bind(7, frequency).bind(8, coupon);
      if (market_) {
        char body[16];
        std::snprintf(body, sizeof body, "%s%09lld", m.isin_country, static_cast<long long>(id));
        st.bind(9, std::string_view(m.convention)).bind(10, std::string(body) + isin_check_digit(body));
      }
      st.run();
      bond_terms_.push_back({start, maturity, static_cast<int>(frequency), coupon});
      tick();
    }
  }

  // Market quotes for about 80% of the bonds: the model's clean price at a
  // z-spread over the curve of 5 to 200bp, most of them tight (5bp plus
  // 195bp times the square of a uniform draw: a median near 54bp), rounded
  // to a thousandth as prices are quoted. From a random stream of their own,
  // so that the other tables are what they were before quotes existed.
  void quotes() {
    Random rng(options_.seed ^ 0x51D0'7E5ULL);
    CouponGridDays grids;
    lay_out_coupon_grids(today_, kNumForwardDays, grids);
    std::vector<CurveArrays> curves(curve_points_.size());
    for (std::size_t c = 0; c < curves.size(); ++c) build_discount_factors(curve_points_[c], curves[c]);
    base::Statement st = db_.prepare(insert_all(input_table("bond_quote")));
    for (std::size_t i = 0; i < bond_ids_.size(); ++i) {
      const bool quoted = rng.uniform(0, 1) < 0.8;
      const double u = rng.uniform(0, 1), spread = 0.0005 + 0.0195 * u * u;
      if (!quoted) continue;
      const BondTerms& b = bond_terms_[i];
      const CurveArrays& curve = curves[bond_curve_[i]];
      const double clean = Random::round_to(market_ ? convention_clean(b, bond_curve_[i], curve, spread)
                                                    : trad4_clean(b, grids, curve, spread),
                                            0.001);
      if (clean > 0) st.bind(1, bond_ids_[i]).bind(2, clean).run();
    }
  }

  // A trad4 bond's clean price at a spread over the curve.
  double trad4_clean(const BondTerms& b, const CouponGridDays& grids, const CurveArrays& curve, double spread) const {
    const RemainingFlows flows = remaining_flows(grids, today_, grid_place(b.maturity, b.coupons_per_year),
                                                 coupon_count(b.start, b.maturity, b.coupons_per_year), b.maturity,
                                                 b.coupons_per_year, b.coupon);
    const double dirty = spread_price(flows, {curve.df.data(), static_cast<std::size_t>(curve.df.size())}, spread);
    return dirty - flows.c100 * std::max(0.0, 1 - flows.w);
  }

  // A convention bond's, settling by its market's convention on its calendar.
  double convention_clean(const BondTerms& b, std::size_t market, const CurveArrays& curve, double spread) const {
    const Convention& convention = conventions_[market];
    const BusinessDays& days = business_days_[market];
    ConventionFlows flows;
    convention_flows(b, convention, days, today_, flows);
    const Date settlement = days.advance(today_, convention.settlement_days);
    return dirty_at_spread(flows, convention, today_, settlement, curve, spread) -
           convention_accrued(flows, convention, settlement);
  }

  // A random bond for trade i of `trades` (trades and bonds alternate
  // curves, so that trade i is on curve i % 2 and every curve gets the same
  // number of trades), from the desk of the curve's bonds that matches the
  // trade's place among the curve's trades.
  std::size_t pick_bond(std::size_t i, std::size_t trades) {
    const std::size_t curves = markets_.size(), curve = i % curves;
    const std::size_t on_curve = (preset_.bonds - curve + curves - 1) / curves;
    const std::size_t desk = (i / curves) * options_.desks / ((trades + curves - 1) / curves);
    const std::size_t first = desk * on_curve / options_.desks, last = (desk + 1) * on_curve / options_.desks;
    const auto k = first + static_cast<std::size_t>(rng_.between(0, static_cast<std::int64_t>(last - first) - 1));
    return curve + curves * k;
  }

  static std::string_view side(Random& rng) { return rng.between(0, 1) ? "BUY" : "SELL"; }

  void outright_trades() {
    base::Statement st = db_.prepare(insert_all(input_table(Kind::outright_trade)));
    outright_by_curve_.resize(markets_.size());
    for (std::size_t i = 0; i < preset_.outright_trades; ++i) {
      const std::int64_t id = new_id();
      const std::size_t bond = pick_bond(i, preset_.outright_trades);
      outright_by_curve_[bond_curve_[bond]].push_back(id);
      st.bind(1, id).bind(2, "OT_" + std::to_string(id)).bind(3, bond_ids_[bond]);
      st.bind(4, format_date(today_ - static_cast<Date>(rng_.between(0, 730))));
      st.bind(5, Random::round_to(rng_.uniform(85.0, 115.0), 0.01)).bind(6, rng_.between(1, 1000) * 100);
      st.bind(7, side(rng_)).run();
      tick();
    }
  }

  void repo_trades() {
    base::Statement st = db_.prepare(insert_all(input_table(Kind::repo_trade)));
    repo_by_curve_.resize(markets_.size());
    for (std::size_t i = 0; i < preset_.repo_trades; ++i) {
      const std::int64_t id = new_id();
      const std::size_t curve = i % markets_.size();
      const std::size_t bond = pick_bond(i, preset_.repo_trades);
      repo_by_curve_[curve].push_back(id);
      const std::int64_t notional = rng_.between(10, 10'000) * 100;
      st.bind(1, id).bind(2, "RT_" + std::to_string(id)).bind(3, bond_ids_[bond]).bind(4, calendar_ids_[curve]);
      st.bind(5, curve_ids_[curve]).bind(6, format_date(today_ - static_cast<Date>(rng_.between(0, 180))));
      st.bind(7, format_date(today_ + static_cast<Date>(rng_.between(1, 365)))).bind(8, notional);
      st.bind(9, Random::round_to(static_cast<double>(notional) * 100.0 * rng_.uniform(0.95, 1.02), 0.01));
      st.bind(10, Random::round_to(rng_.uniform(0.02, 0.08), 0.0001)).bind(11, std::string_view(markets_[curve].ccy));
      st.bind(12, side(rng_)).run();
      tick();
    }
  }

  void books(Kind kind, const std::string& prefix, const std::vector<std::vector<std::int64_t>>& by_curve) {
    base::Statement book = db_.prepare(insert_all(input_table(kind)));
    base::Statement member = db_.prepare(insert_all(membership_table(kind)));
    for (std::size_t c = 0; c < by_curve.size(); ++c) {
      const std::vector<std::int64_t>& trades = by_curve[c];
      for (std::size_t first = 0, n = 1; first < trades.size(); first += options_.book_size, ++n) {
        const std::int64_t id = new_id();
        book.bind(1, id).bind(2, prefix + "_" + markets_[c].curve + "_" + std::to_string(n)).run();
        const std::size_t last = std::min(trades.size(), first + options_.book_size);
        for (std::size_t t = first; t < last; ++t) {
          member.bind(1, id).bind(2, trades[t]).run();
          tick();
        }
      }
    }
  }

  const Preset& preset_;
  const GenerateOptions& options_;
  base::Database& db_;
  Random rng_;
  const Date today_ = *parse_date("2025-11-21");
  std::int64_t next_id_ = 1;
  const std::span<const MarketDef> markets_;  // one per curve
  const bool market_;                          // the market mix: conventions, holidays, 60-year curves
  std::vector<std::int64_t> calendar_ids_, curve_ids_, bond_ids_;  // per curve, per curve, per bond
  std::vector<BusinessDays> business_days_;    // per curve, for the market mix's quotes
  std::vector<Convention> conventions_;        // per curve, the market mix's
  std::vector<std::size_t> bond_curve_;
  std::vector<BondTerms> bond_terms_;           // per bond, for its quote
  std::vector<std::vector<CurvePoint>> curve_points_;  // per curve
  std::vector<std::vector<std::int64_t>> outright_by_curve_, repo_by_curve_;
  base::ProgressBar* progress_ = nullptr;
};

}  // namespace

std::size_t max_desks(const Preset& preset, Conventions conventions) {
  return preset.bonds / markets_of(conventions).size();
}

void generate(const Preset& preset, const GenerateOptions& options, const std::string& path) {
  if (options.book_size == 0) throw std::invalid_argument("book size must be at least 1");
  if (options.desks == 0 || options.desks > max_desks(preset, options.conventions)) {
    throw std::invalid_argument("desks must be 1 to " + std::to_string(max_desks(preset, options.conventions)) + " for preset " + preset.name +
                                " (a desk needs a bond of its own on every curve), not " + std::to_string(options.desks));
  }
  if (access(path.c_str(), F_OK) == 0) {
    throw std::invalid_argument(path + " already exists; remove it first or choose another --out");
  }
  TempFile tmp(path);
  {
    base::Database db(tmp.path(), base::Database::Mode::read_write);
    // Pages of 1 KiB: a live change rewrites whole pages of rows it touches
    // (a 100-bond quote tick about 90 KB of them, against 280 KB in SQLite's
    // 4 KiB pages), and the engine writes about half the bytes
    // (docs/benchmarks.md, "Input pages of 1 KiB").
    db.exec("PRAGMA page_size = 1024; PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF");
    upgrade_input_schema(db);
    base::Transaction tx(db);
    Writer(preset, options, db).run();
    generate_limit_set(db, options.seed, options.limits_per_book);
    tx.commit();
  }
  tmp.commit();
}

}  // namespace bond_risk
