// Synthetic data sets: deterministic for a given preset, seed and book size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace bond_risk {

struct Preset {
  std::string name;
  std::size_t bonds, outright_trades, repo_trades;
  std::size_t book_size = 1000;  // trades per book unless asked otherwise
  std::size_t desks = 1;         // desks per curve unless asked otherwise
};

// tiny, 100, 50k, 220k, 440k, 1M, 10M (books of 10,000, 20 desks a curve);
// each has one calendar and two curves, or with Conventions::market three.
const std::vector<Preset>& presets();

// The preset called `name`; throws std::invalid_argument listing the presets otherwise.
const Preset& find_preset(const std::string& name);

// What the bonds are: the trad4 model (one calendar, no holidays, two
// 20-year curves), or the market mix (docs/model.md "Market conventions"):
// UK gilts, US Treasuries and Bunds on their own calendars (England and
// Wales, the US government bond market, TARGET, with their holidays by
// rule), conventions and 60-year curves, maturities to 50 years, an ISIN
// each; their dated dates fall anywhere, so many have a short first coupon.
enum class Conventions { none, market };

// The most desks `preset` can be cut into: a desk needs a bond of its
// own on every curve, so its bonds per curve (the fewest any curve has).
std::size_t max_desks(const Preset& preset, Conventions conventions = Conventions::none);

struct GenerateOptions {
  std::uint64_t seed = 1;
  std::size_t book_size = 1000;  // trades per book; books never mix curves
  // Each curve's bonds and, in the same order, its outright and its repo
  // trades are cut into this many desks: a trade holds a bond of its desk,
  // so consecutive books hold a matching slice of the bonds. 1: any bond
  // of the curve. 1..max_desks(preset).
  std::size_t desks = 1;
  // Risk limits per book (synth/limit_generator.h); none by default here,
  // kDefaultLimitsPerBook from `bond_risk generate`.
  std::size_t limits_per_book = 0;
  Conventions conventions = Conventions::none;
};

// Writes a new database at `path` (which must not exist: std::invalid_argument): the schema, then
// every input table in one transaction. Writes to a temporary file beside
// it that is renamed into place, so `path` never holds a half-made data
// set; a generate that fails removes the temporary file. Throws
// std::invalid_argument for options out of range.
void generate(const Preset& preset, const GenerateOptions& options, const std::string& path);

}  // namespace bond_risk
