import Foundation
import Postgres
import Testing

/// Tests that must run alone: a real `pg_ctl restart` would break other suites' connections, and
/// the 1M-row streaming test measures the whole process's resident memory, which other suites'
/// allocations would skew. `scripts/test` runs them in their own phase; by hand:
/// `swift test --filter DisruptiveTests`.
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

    /// Growth allowed while streaming a million rows. The result itself is ~1M × (8-byte id +
    /// 32-char md5 + 100-char padding) ≈ 140 MB of text in libpq's buffer alone if it were held
    /// whole; a 2,000-row batch is ≈ 0.3 MB. 64 MB leaves room for allocator slack and the test
    /// runner while still failing loudly if rows were accumulated.
    static let allowedGrowth = 64 * 1024 * 1024

    @Test("streaming 1,000,000 rows through a cursor keeps resident memory flat")
    func millionRows() async throws {
        let client = try await TestDatabase.client(maxConnections: 2)
        let sql = "SELECT g AS n, md5(g::text) AS h, repeat('x', 100) AS pad FROM generate_series(1, $1::bigint) g"
        // Warm up allocator and code paths so the baseline is honest.
        let warm = try await client.stream(sql, [20_000], batchSize: 2000) { _ in }
        #expect(warm == 20_000)

        let before = try TestDatabase.residentBytes()
        var peak = before
        var count = 0
        var sum = 0
        var checked = true
        let clock = ContinuousClock()
        let start = clock.now
        let streamed = try await client.stream(sql, [1_000_000], batchSize: 2000) { row in
            let n = try row.decode("n", as: Int.self)
            count += 1
            sum += n
            if n != count { checked = false }
            if n % 50_000 == 0 {
                #expect(try row.decode("pad", as: String.self).count == 100)
                peak = max(peak, try TestDatabase.residentBytes())
            }
        }
        let elapsed = clock.now - start
        let after = try TestDatabase.residentBytes()
        peak = max(peak, after)
        #expect(streamed == 1_000_000)
        #expect(count == 1_000_000)
        #expect(checked, "rows arrive in order")
        #expect(sum == 1_000_000 * 1_000_001 / 2)
        let growth = peak - before
        TestDatabase.logger.info("streamed 1,000,000 rows", [
            "seconds": "\(elapsed)", "rss_before_mb": PostgresServerTests.StreamingTests.megabytes(before), "rss_peak_mb": PostgresServerTests.StreamingTests.megabytes(peak),
            "rss_after_mb": PostgresServerTests.StreamingTests.megabytes(after), "growth_mb": PostgresServerTests.StreamingTests.megabytes(growth),
        ])
        #expect(growth < Self.allowedGrowth, "RSS grew \(PostgresServerTests.StreamingTests.megabytes(growth)) MB while streaming")

        // For comparison only (logged, not asserted): the same rows fetched whole.
        let fullStart = clock.now
        let whole = try await client.query(sql, [1_000_000])
        let wholeRSS = try TestDatabase.residentBytes()
        TestDatabase.logger.info("fetched 1,000,000 rows whole (comparison)", [
            "seconds": "\(clock.now - fullStart)", "rows": "\(whole.count)",
            "rss_growth_mb": PostgresServerTests.StreamingTests.megabytes(wholeRSS - after),
        ])
        await client.shutdown()
    }
}
