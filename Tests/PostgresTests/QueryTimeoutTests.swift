import Foundation
import Postgres
import Testing

extension PostgresServerTests {
    /// Issue 22: a server that stops answering (a paused PostgreSQL keeps its sockets open, so
    /// neither TCP nor `statement_timeout` notices) must not hang a query forever. Only this test's
    /// own backend process is paused (SIGSTOP), so the shared server keeps serving other tests.
    @Suite("Query timeout")
    struct QueryTimeoutTests {
        @Test("a query to a paused backend fails with queryTimedOut, and the pool recovers on a new connection")
        func pausedBackendTimesOut() async throws {
            var configuration = try TestDatabase.configuration(maxConnections: 1)
            configuration.queryTimeout = .seconds(1)
            let client = PostgresClient(configuration: configuration, logger: TestDatabase.logger)
            let paused = try await client.query("SELECT pg_backend_pid() AS pid")[0].decode("pid", as: Int32.self)
            try #require(kill(paused, SIGSTOP) == 0,
                         "cannot SIGSTOP backend \(paused) (errno \(errno)): run the tests as root or as the server's user")
            defer { kill(paused, SIGCONT) }
            let started = ContinuousClock.now
            do {
                _ = try await client.query("SELECT 1 AS one")
                Issue.record("a query to a paused backend returned")
            } catch let error as PostgresError {
                guard case .queryTimedOut = error else {
                    Issue.record("expected queryTimedOut, got \(error)")
                    return
                }
                #expect(error.isUnavailable)
                #expect(error.description.contains("no answer from the server within"))
            }
            let waited = ContinuousClock.now - started
            #expect(waited >= .seconds(1) && waited < .seconds(20), "failed at the timeout, not never: \(waited)")
            kill(paused, SIGCONT)
            // The timed-out connection was closed: the next query gets a new backend and works.
            let next = try await client.query("SELECT pg_backend_pid() AS pid")[0].decode("pid", as: Int32.self)
            #expect(next != paused, "the pool opened a fresh connection")
            await client.shutdown()
        }

        @Test("query_timeout_ms in the URL sets the timeout; 0 turns it off")
        func urlKey() throws {
            #expect(try PostgresConfiguration(url: "postgresql://u@h/d?query_timeout_ms=2500").queryTimeout == .milliseconds(2500))
            #expect(try PostgresConfiguration(url: "postgresql://u@h/d?query_timeout_ms=0").queryTimeout == nil)
            #expect(try PostgresConfiguration(url: "postgresql://u@h/d").queryTimeout == .seconds(10))
            #expect(throws: PostgresError.self) { try PostgresConfiguration(url: "postgresql://u@h/d?query_timeout_ms=soon") }
        }
    }
}
