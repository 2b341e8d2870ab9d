// The text of schema/bond_risk.sql, compiled in (see the Makefile). Every
// statement is CREATE ... IF NOT EXISTS, so it may be run on any database.
#pragma once

namespace bond_risk {
extern const char* const kSchemaSql;
}
