import Foundation
import Postgres
import Testing

/// Tests that disrupt the shared servers for everyone (a real `pg_ctl restart`). `scripts/test`
/// runs them in a second phase, alone, so they never break other suites' connections; run them
/// by hand with `swift test --filter DisruptiveTests`.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct DisruptiveTests {
    @Test("after a real pg_ctl restart the same pool recovers without restarting the process")
    func serverRestart() async throws {
        let client = try await TestDatabase.client(maxConnections: 3)
        let before = try await PostgresServerTests.RecoveryTests.warm(client, connections: 3)
        _ = try await client.query("SELECT $1::bigint + 1 AS n", [41], prepared: true)
        let lock = try #require(try await client.tryAdvisoryLock(key: Int64.random(in: 1...Int64.max)))
        #expect(await lock.isHeld())

        let restart = try await PostgresServerTests.RecoveryTests.restartServer()
        TestDatabase.logger.info("postgres restarted by the test", ["seconds": "\(restart)"])

        for attempt in 0..<10 {
            let row = try await client.query("SELECT pg_backend_pid() AS pid, $1::bigint AS attempt", [attempt])[0]
            #expect(!before.contains(try row.decode("pid", as: Int.self)))
            #expect(try row.decode("attempt", as: Int.self) == attempt)
        }
        let prepared = try await client.query("SELECT $1::bigint + 1 AS n", [41], prepared: true)[0]
        #expect(try prepared.decode("n", as: Int.self) == 42, "prepared again on the new connection")
        try await client.withTransaction { tx in _ = try await tx.query("SELECT 1") }
        _ = try await PostgresServerTests.RecoveryTests.warm(client, connections: 3)
        #expect(client.statistics.open <= 3)
        #expect(!(await lock.isHeld()), "a session lock does not survive the restart")
        await lock.release()
        await client.shutdown()
    }
}
