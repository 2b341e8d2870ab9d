// The desk page in a real browser: headless Chromium, driven through
// ChromeDriver's WebDriver API, loads the page from a gateway following an
// engine, shows a book's pv and cs01 as the engine replies them, the new pv
// after an amendment sent through the engine's socket, and the book's
// largest positions with their bonds' figures, also after a set-price. A screenshot of the
// page is saved as build/test-output/desk_page.png for a person to look at.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "base/json.h"
#include "tests/web_support.h"
// After Eigen (through the model headers): resolv.h, which httplib includes, defines macros Eigen names.
#include <httplib.h>

using test::Desk;
using test::eventually;

namespace {

std::string base64_decode(const std::string& text) {
  std::string out;
  unsigned bits = 0;
  int count = 0;
  for (char c : text) {
    const char* digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const char* at = c ? std::strchr(digits, c) : nullptr;
    if (!at) continue;  // padding, line breaks
    bits = (bits << 6) | static_cast<unsigned>(at - digits);
    if ((count += 6) >= 8) out.push_back(static_cast<char>((bits >> (count -= 8)) & 0xff));
  }
  return out;
}

// A headless Chromium session through a ChromeDriver of its own.
class Browser {
 public:
  explicit Browser(const test::TempDir& dir)
      : port_(test::free_port()),
        driver_({"/usr/bin/chromedriver", "--port=" + std::to_string(port_)}, dir.path("chromedriver.log")),
        client_("127.0.0.1", port_) {
    client_.set_read_timeout(std::chrono::seconds(60));
    if (!eventually([&] { return static_cast<bool>(client_.Get("/status")); })) {
      throw std::runtime_error("chromedriver did not start (is the chromium-driver package installed?): " +
                               test::slurp(dir.path("chromedriver.log")));
    }
    // The flags of a browser on a closed network: no background connections, no sandbox as root.
    const base::Json args = {"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                             "--disable-background-networking", "--disable-component-update", "--disable-sync",
                             "--window-size=1400,900", "--user-data-dir=" + dir.path("chromium")};
    const base::Json caps = {{"capabilities",
                              {{"alwaysMatch", {{"goog:chromeOptions", {{"binary", "/usr/bin/chromium"}, {"args", args}}}}}}}};
    session_ = call("POST", "/session", caps)["sessionId"];
  }
  ~Browser() {
    if (!session_.empty()) client_.Delete("/session/" + session_);
  }
  Browser(const Browser&) = delete;
  Browser& operator=(const Browser&) = delete;

  void open(const std::string& url) { call("POST", path("/url"), {{"url", url}}); }
  // Runs `script` (a function body) in the page; its return value.
  base::Json run(const std::string& script) {
    return call("POST", path("/execute/sync"), {{"script", script}, {"args", base::Json::array()}});
  }
  std::string screenshot_png() { return base64_decode(call("GET", path("/screenshot"), nullptr).get<std::string>()); }

 private:
  std::string path(const std::string& rest) const { return "/session/" + session_ + rest; }
  base::Json call(const std::string& method, const std::string& where, const base::Json& body) {
    const httplib::Result r = method == "GET" ? client_.Get(where)
                                              : client_.Post(where, base::dump_line(body), "application/json");
    if (!r) throw std::runtime_error("no answer from chromedriver to " + method + " " + where);
    const base::Json reply = base::Json::parse(r->body);
    if (r->status != 200) throw std::runtime_error("chromedriver: " + method + " " + where + ": " + r->body);
    return reply["value"];
  }

  int port_;
  test::Process driver_;
  httplib::Client client_;
  std::string session_;
};

// The number a cell shows ("-1,234,567", "4.975%", "67.7bp": the number before its unit), or NaN.
double shown(const base::Json& text) {
  if (!text.is_string()) return std::nan("");
  std::string digits;
  for (char c : text.get<std::string>()) {
    if (c != ',') digits += c;
  }
  try {
    return std::stod(digits);
  } catch (const std::exception&) {
    return std::nan("");
  }
}

}  // namespace

TEST(Browser, TheDeskPageShowsABooksPvAndItsNewPvAfterAnAmendment) {
  Desk desk;
  ASSERT_TRUE(eventually([&] { return !desk.snapshot()["rows"].empty(); })) << desk.log();
  // The book of trade OT_10, named as list-books names it.
  const base::Json probe = desk.send("amend-trade OT_10 quantity=300");
  ASSERT_TRUE(probe["ok"]) << probe;
  std::string name;
  const base::Json books = desk.send("list-books");
  for (const base::Json& b : books["books"]) {
    if (b["id"] == probe["books"][0]["id"]) name = b["name"];
  }
  ASSERT_FALSE(name.empty()) << probe;
  Browser browser(desk.dir);
  browser.open("http://" + desk.host + ":" + std::to_string(desk.port) + "/?book=" + name);
  const auto book_cell = [&](const std::string& field) {
    return "const c = document.querySelector('#books tr[data-book=\"" + name + "\"] td[data-field=\"" + field +
           "\"]'); return c ? c.textContent : null;";
  };
  const std::string cell = book_cell("pv");
  auto page_shows = [&](double pv) { return std::abs(shown(browser.run(cell)) - pv) <= 0.5; };

  const double pv_before = desk.send("book " + name)["pv"];
  EXPECT_TRUE(eventually([&] { return page_shows(pv_before); })) << browser.run(cell) << " vs " << pv_before;

  const base::Json amended = desk.send("amend-trade OT_10 quantity=800");
  ASSERT_TRUE(amended["ok"]) << amended;
  const double pv_after = desk.send("book " + name)["pv"];
  ASSERT_GT(std::abs(pv_after - pv_before), 1.0) << "the amendment must move the book's pv";
  EXPECT_TRUE(eventually([&] { return page_shows(pv_after); })) << browser.run(cell) << " vs " << pv_after;
  EXPECT_TRUE(eventually([&] {
    return browser.run("return Number(document.body.dataset.event)").get<double>() >= amended["event"].get<double>();
  }));
  EXPECT_TRUE(browser.run("return document.getElementById('banner').hidden").get<bool>());

  // The book's cs01 beside its pv01, and its largest positions in the engine's order with their bonds' figures.
  const double cs01 = desk.send("book " + name)["cs01"];
  EXPECT_TRUE(eventually([&] { return std::abs(shown(browser.run(book_cell("cs01"))) - cs01) <= 0.5; }))
      << browser.run(book_cell("cs01")) << " vs " << cs01;
  const auto positions_shown = [&] {
    return browser.run("return Array.from(document.querySelectorAll('#positions-body tr'), (tr) => "
                       "Object.fromEntries(Array.from(tr.children, (td) => [td.dataset.field, td.textContent])))");
  };
  const base::Json top = desk.send("top-positions " + name + " 20")["positions"];
  ASSERT_FALSE(top.empty());
  EXPECT_TRUE(eventually([&] {
    const base::Json rows = positions_shown();
    if (rows.size() != top.size()) return false;
    for (std::size_t i = 0; i < top.size(); ++i) {
      if (rows[i]["trade"] != std::to_string(top[i]["trade"]["id"].get<std::int64_t>()) ||
          rows[i]["bond"] != std::to_string(top[i]["bond"]["id"].get<std::int64_t>()) ||
          std::abs(shown(rows[i]["pv01"]) - top[i]["trade"]["pv01"].get<double>()) > 0.5) {
        return false;
      }
    }
    return true;
  })) << positions_shown() << " vs " << top;
  const base::Json bond = top[0]["bond"];
  EXPECT_NEAR(shown(positions_shown()[0]["clean_price"]), bond["clean_price"].get<double>(), 0.0005);
  const base::Json quoted = desk.send("set-price " + std::to_string(bond["id"].get<std::int64_t>()) + " " +
                                      std::to_string(bond["clean_price"].get<double>() - 1.0));
  ASSERT_TRUE(quoted["ok"]) << quoted;
  const double z_after = desk.send("get " + std::to_string(bond["id"].get<std::int64_t>()))["z_spread"].get<double>() * 1e4;
  // "67.7bp": the first row's z_spread in basis points.
  EXPECT_TRUE(eventually([&] { return std::abs(shown(positions_shown()[0]["z_spread"]) - z_after) <= 0.05; }))
      << positions_shown() << " vs a z_spread of " << z_after << "bp";

  // The book's day_pnl beside its values, and its P&L explain as a waterfall: a bar per cause, then day_pnl.
  const base::Json explained = desk.send("explain " + name);
  ASSERT_TRUE(explained["ok"]) << explained;
  EXPECT_TRUE(eventually([&] {
    return std::abs(shown(browser.run(book_cell("day_pnl"))) - explained["day_pnl"].get<double>()) <= 0.5;
  })) << browser.run(book_cell("day_pnl")) << " vs " << explained["day_pnl"];
  const std::string waterfall = "const c = Chart.getChart('explain-book'); return c ? c.data.labels : null;";
  EXPECT_TRUE(eventually([&] {
    const base::Json labels = browser.run(waterfall);
    return labels.is_array() && labels.size() == explained["causes"].size() + 1 && labels.back() == "day_pnl" &&
           labels.front() == explained["causes"][0]["cause"];
  })) << browser.run(waterfall) << " vs " << explained["causes"];

  const std::string png = browser.screenshot_png();
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  const std::filesystem::path out = std::filesystem::path(test::source_dir()) / "build" / "test-output";
  std::filesystem::create_directories(out);
  std::ofstream(out / "desk_page.png", std::ios::binary) << png;
}

// scripts/desk-screenshot.sh writes a PNG of the page, exits 0, and leaves
// nothing behind (it exited 143, its chromedriver's status, and kept a 2 MB
// browser profile in the temporary directory each time).
TEST(Browser, TheScreenshotScriptExitsZeroAndLeavesNothingBehind) {
  Desk desk;
  ASSERT_TRUE(eventually([&] { return !desk.snapshot()["rows"].empty(); })) << desk.log();
  test::TempDir tmp;
  const std::string out = desk.dir.path("desk.png");
  const std::string cmd = "cd '" + test::source_dir() + "' && TMPDIR='" + tmp.path("") + "' scripts/desk-screenshot.sh http://" +
                          desk.host + ":" + std::to_string(desk.port) + "/ '" + out + "' 800,600 > /dev/null 2>&1";
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(test::slurp(out).substr(0, 4), "\x89PNG");
  EXPECT_TRUE(std::filesystem::is_empty(tmp.path(""))) << "left in TMPDIR: " << std::filesystem::directory_iterator(tmp.path(""))->path();
}
