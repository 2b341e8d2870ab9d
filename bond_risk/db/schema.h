// The text of schema/bond_risk.sql (inputs and the event log),
// schema/results.sql (the results database) and schema/scenarios.sql (the
// scenario results database), compiled in (see the Makefile). Every
// statement is CREATE ... IF NOT EXISTS, so any may be run on any database.
#pragma once

namespace bond_risk {
extern const char* const kSchemaSql;
extern const char* const kResultsSchemaSql;
extern const char* const kScenarioSchemaSql;
}
