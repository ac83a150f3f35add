import Testing

/// Every test that talks to the real server. Serialized: one of them restarts the server and
/// one measures the process's memory, and neither may overlap with the others.
/// (Each test still uses its own table/schema names.)
@Suite("PostgreSQL server", .serialized, .timeLimit(.minutes(5)))
struct PostgresServerTests {}
