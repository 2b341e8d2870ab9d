#include "bond_risk/synth/scenario_generator.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "bond_risk/synth/random.h"
#include "bond_risk/db/schema.h"

namespace bond_risk {

namespace {

struct CurveRows {
  std::int64_t id;
  std::vector<std::int64_t> idx;
  std::vector<double> years;  // each point's tenor
};

std::vector<CurveRows> curves_of(base::Database& db) {
  std::vector<CurveRows> curves;
  base::Statement st = db.prepare("SELECT ir_curve_id, idx, days_forward FROM ir_curve_input_rate ORDER BY ir_curve_id, idx");
  while (st.step()) {
    if (curves.empty() || curves.back().id != st.integer(0)) curves.push_back({st.integer(0), {}, {}});
    curves.back().idx.push_back(st.integer(1));
    curves.back().years.push_back(static_cast<double>(st.integer(2)) / 365.25);
  }
  return curves;
}

class SetWriter {
 public:
  SetWriter(base::Database& db, std::vector<CurveRows> curves) : db_(db), curves_(std::move(curves)) {
    base::Statement last = db_.prepare("SELECT coalesce(max(id), 0) FROM scenario");
    last.step();
    next_id_ = last.integer(0) + 1;
  }

  void set(const std::string& name, const char* kind) {
    base::Statement st = db_.prepare("INSERT OR REPLACE INTO scenario_set (name, kind) VALUES (?, ?)");
    st.bind(1, name).bind(2, std::string_view(kind)).run();
    set_ = name;
  }

  // One scenario: `shift(curve, k)` basis points at point k of each curve.
  template <class ShiftFn>
  void scenario(const std::string& name, ShiftFn shift) {
    const std::int64_t id = next_id_++;
    scenario_.bind(1, id).bind(2, name).bind(3, set_).run();
    for (std::size_t c = 0; c < curves_.size(); ++c) {
      for (std::size_t k = 0; k < curves_[c].idx.size(); ++k) {
        const double bp = Random::round_to(shift(c, k), 0.01);
        shift_.bind(1, id).bind(2, curves_[c].id).bind(3, curves_[c].idx[k]).bind(4, bp).run();
      }
    }
  }

  const std::vector<CurveRows>& curves() const { return curves_; }

 private:
  base::Database& db_;
  std::vector<CurveRows> curves_;
  std::string set_;
  std::int64_t next_id_ = 1;
  base::Statement scenario_ = db_.prepare("INSERT INTO scenario (id, name, set_name) VALUES (?, ?, ?)");
  base::Statement shift_ = db_.prepare("INSERT INTO scenario_shift (scenario_id, ir_curve_id, idx, shift_bp) VALUES (?, ?, ?, ?)");
};

// -1 at the first point, +1 at the last, linear in the point's index.
double across(const CurveRows& c, std::size_t k) {
  return c.idx.size() < 2 ? 0.0 : -1.0 + 2.0 * static_cast<double>(k) / static_cast<double>(c.idx.size() - 1);
}

void ladder_set(SetWriter& w) {
  w.set("ladder", "stress");
  for (int bp : {-200, -150, -100, -50, -25, -10, 10, 25, 50, 100, 150, 200}) {
    w.scenario("parallel" + std::string(bp > 0 ? "+" : "") + std::to_string(bp) + "bp", [bp](std::size_t, std::size_t) { return bp; });
  }
  const auto& curves = w.curves();
  for (int bp : {25, 50}) {
    const std::string size = std::to_string(bp);
    w.scenario("steepener" + size + "bp", [&, bp](std::size_t c, std::size_t k) { return bp * across(curves[c], k); });
    w.scenario("flattener" + size + "bp", [&, bp](std::size_t c, std::size_t k) { return -bp * across(curves[c], k); });
    // Wings +bp against the belly -bp (a parabola in the point's index).
    auto fly = [&, bp](std::size_t c, std::size_t k) { const double x = across(curves[c], k); return bp * (2 * x * x - 1); };
    w.scenario("butterfly" + size + "bp", fly);
    w.scenario("butterfly-" + size + "bp", [&](std::size_t c, std::size_t k) { return -fly(c, k); });
  }
}

// Daily volatility in bp of the level, slope and curvature factors on a calm day.
constexpr std::array<double, 3> kDailyBp = {5.0, 2.5, 1.5};

void historical_set(SetWriter& w, std::uint64_t seed) {
  w.set("historical", "historical");
  Random rng(seed * 0x2545F4914F6CDD1DULL + 77);  // its own stream: the data set's draws do not change
  const auto& curves = w.curves();
  for (int day = 1; day <= kHistoricalDays; ++day) {
    const double vol = rng.uniform(0, 1) < 0.05 ? 3.0 : 1.0;  // a stressed day in twenty
    // Level, slope and curvature per curve, standard normal draws; the
    // first curve's drive the others' (correlation 0.8); then in bp.
    std::vector<std::array<double, 3>> factors(curves.size());
    for (std::size_t c = 0; c < curves.size(); ++c) {
      for (std::size_t f = 0; f < 3; ++f) {
        const double own = rng.normal();
        factors[c][f] = c == 0 ? own : 0.8 * factors[0][f] + 0.6 * own;
      }
    }
    for (auto& f : factors) {
      for (std::size_t k = 0; k < 3; ++k) f[k] *= kDailyBp[k] * vol;
    }
    std::vector<std::vector<double>> noise(curves.size());
    for (std::size_t c = 0; c < curves.size(); ++c) {
      for (std::size_t k = 0; k < curves[c].idx.size(); ++k) noise[c].push_back(0.5 * vol * rng.normal());
    }
    char name[32];
    std::snprintf(name, sizeof name, "day-%03d", day);
    w.scenario(name, [&](std::size_t c, std::size_t k) {
      const double x = across(curves[c], k);
      return factors[c][0] + factors[c][1] * x + factors[c][2] * (2 * x * x - 1) + noise[c][k];
    });
  }
}

}  // namespace

void add_scenario_sets(const std::string& path, std::uint64_t seed) {
  base::Database db(path, base::Database::Mode::read_write);
  db.exec(kSchemaSql);
  base::Transaction tx(db, true);
  db.exec(
      "DELETE FROM scenario_shift WHERE scenario_id IN (SELECT id FROM scenario WHERE set_name IN ('ladder', 'historical'));"
      "DELETE FROM scenario WHERE set_name IN ('ladder', 'historical');");
  generate_scenario_sets(db, seed);
  tx.commit();
}

void generate_scenario_sets(base::Database& db, std::uint64_t seed) {
  SetWriter writer(db, curves_of(db));
  ladder_set(writer);
  historical_set(writer, seed);
}

}  // namespace bond_risk
