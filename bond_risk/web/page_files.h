// The desk page's files (bond_risk/web/page/), compiled in by the Makefile
// so that the gateway is one binary with no files to find at run time.
#pragma once

namespace bond_risk::web {

extern const char* const kIndexHtml;
extern const char* const kDeskJs;
extern const char* const kDeskCss;

}  // namespace bond_risk::web
