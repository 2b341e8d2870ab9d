#include "bond_risk/synth/limit_generator.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <vector>

#include "bond_risk/db/change_writer.h"
#include "bond_risk/db/loader.h"
#include "bond_risk/db/schema.h"
#include "bond_risk/model/nodes/calculations.h"
#include "bond_risk/model/limits/risk_limits.h"
#include "bond_risk/synth/random.h"
#include "engine/flush.h"
#include "engine/scheduler.h"

namespace bond_risk {

namespace {

// A curve's input point on the key-rate axis.
struct AxisPoint {
  std::int64_t curve_id = 0, idx = 0;
};

std::vector<AxisPoint> axis_points(const Store& s) {
  std::vector<AxisPoint> out(s.key_rate_axis.size);
  for (NodeIndex c = 0; c < s.curves.size(); ++c) {
    for (std::size_t k = 0; k < s.curves[c].point_idx.size(); ++k) {
      out[s.key_rate_axis.offset[c] + k] = {s.id(ref(Kind::ir_curve, c)), s.curves[c].point_idx[k]};
    }
  }
  return out;
}

// A limit's scale: |value|, at least 1 (0 or not a number counts as 1).
double size_of(double value) { return std::max(1.0, std::isfinite(value) ? std::abs(value) : 0.0); }

class LimitWriter {
 public:
  LimitWriter(base::Database& db, std::uint64_t seed) : db_(db), random_(seed) {}

  // Bounds +-multiple times |value| (at least 1), the multiple drawn from [lo, hi] * level.
  void around(std::optional<std::int64_t> book, const char* measure, double value, std::size_t level,
              std::optional<AxisPoint> point = std::nullopt) {
    const double m = random_.uniform(1.3, 1.7) * static_cast<double>(level + 1);
    write(book, measure, -m * size_of(value), m * size_of(value), point);
  }
  // A day's loss: day_pnl's lower bound, `fraction` (drawn from [lo, hi] * level) of |base| (at least 1).
  void loss(std::optional<std::int64_t> book, double base, double lo, double hi, std::size_t level) {
    write(book, "day_pnl", -random_.uniform(lo, hi) * static_cast<double>(level + 1) * size_of(base), INFINITY,
          std::nullopt);
  }
  std::size_t written() const { return written_; }

 private:
  void write(std::optional<std::int64_t> book, const char* measure, double lower, double upper,
             std::optional<AxisPoint> point) {
    RiskLimit limit;
    limit.id = static_cast<std::int64_t>(++written_);
    limit.book_id = book;
    limit.measure = measure;
    if (point) limit.ir_curve_id = point->curve_id, limit.idx = point->idx;
    limit.lower = Random::round_to(lower, 1e-6), limit.upper = std::isfinite(upper) ? Random::round_to(upper, 1e-6) : upper;
    persist(db_, LimitRow{limit});
  }

  base::Database& db_;
  Random random_;
  std::size_t written_ = 0;
};

}  // namespace

std::size_t generate_limit_set(base::Database& db, std::uint64_t seed, std::size_t per_book) {
  db.exec("DELETE FROM risk_limit");
  if (per_book == 0) return 0;
  Store store = load(db).store;
  engine::Graph graph;
  build_graph(store, graph);
  const std::unique_ptr<engine::Scheduler> scheduler = make_scheduler(engine::SchedulerOptions{});
  engine::flush(graph, *scheduler, 4096);
  const std::vector<AxisPoint> points = axis_points(store);
  LimitWriter out(db, seed ^ 0x6c696d697473ULL);  // a stream of its own
  for (NodeIndex b = 0; b < store.outright_books.size(); ++b) {
    const OutrightBook& book = store.outright_books[b];
    const std::int64_t id = store.id(ref(Kind::outright_book, b));
    std::vector<std::size_t> buckets(book.kr01.size());
    std::iota(buckets.begin(), buckets.end(), std::size_t{0});
    std::stable_sort(buckets.begin(), buckets.end(),
                     [&](std::size_t x, std::size_t y) { return std::abs(book.kr01[x]) > std::abs(book.kr01[y]); });
    // The list: pv01, kr01 #1, kr01 #2, cs01, day_pnl, the other buckets; repeated at wider levels.
    const std::size_t listed = 3 + std::max<std::size_t>(buckets.size(), 2);
    for (std::size_t n = 0; n < per_book; ++n) {
      const std::size_t level = n / listed, k = n % listed;
      const auto bucket = [&](std::size_t rank) {
        if (rank < buckets.size()) out.around(id, "kr01", book.kr01[buckets[rank]], level, points[buckets[rank]]);
        else out.around(id, "pv01", book.total.pv01, level);  // no ladder: pv01 again
      };
      if (k == 0) out.around(id, "pv01", book.total.pv01, level);
      else if (k <= 2) bucket(k - 1);
      else if (k == 3) out.around(id, "cs01", book.cs01, level);
      else if (k == 4) out.loss(id, book.total.pv01, 30, 70, level);
      else bucket(k - 3);
    }
  }
  for (NodeIndex b = 0; b < store.repo_books.size(); ++b) {
    const RepoBook& book = store.repo_books[b];
    const std::int64_t id = store.id(ref(Kind::repo_book, b));
    for (std::size_t n = 0; n < per_book; ++n) {
      if (n % 2 == 0) out.around(id, "margin", book.total.margin, n / 2);
      else out.loss(id, book.total.margin, 0.03, 0.07, n / 2);
    }
  }
  double pv01 = 0, margin = 0;
  for (const OutrightBook& b : store.outright_books) pv01 += std::isfinite(b.total.pv01) ? b.total.pv01 : 0;
  for (const RepoBook& b : store.repo_books) margin += std::isfinite(b.total.margin) ? b.total.margin : 0;
  out.around(std::nullopt, "pv01", pv01, 0);
  out.around(std::nullopt, "margin", margin, 0);
  out.loss(std::nullopt, pv01, 50, 50, 0);
  return out.written();
}

std::size_t add_limit_set(const std::string& path, std::uint64_t seed, std::size_t per_book) {
  base::Database db(path, base::Database::Mode::read_write);
  db.exec(kSchemaSql);
  base::Transaction tx(db, true);
  const std::size_t written = generate_limit_set(db, seed, per_book);
  tx.commit();
  return written;
}

}  // namespace bond_risk
