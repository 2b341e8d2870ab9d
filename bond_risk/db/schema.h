// The text of schema/bond_risk.sql (inputs and the event log) and of
// schema/results.sql (the results database), compiled in (see the
// Makefile). Every statement is CREATE ... IF NOT EXISTS, so either may be
// run on any database.
#pragma once

namespace bond_risk {
extern const char* const kSchemaSql;
extern const char* const kResultsSchemaSql;
}
