import Foundation
import Postgres
import Testing

extension PostgresServerTests {
    @Suite("Streaming")
    struct StreamingTests {
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
                "seconds": "\(elapsed)", "rss_before_mb": Self.megabytes(before), "rss_peak_mb": Self.megabytes(peak),
                "rss_after_mb": Self.megabytes(after), "growth_mb": Self.megabytes(growth),
            ])
            #expect(growth < Self.allowedGrowth, "RSS grew \(Self.megabytes(growth)) MB while streaming")

            // For comparison only (logged, not asserted): the same rows fetched whole.
            let fullStart = clock.now
            let whole = try await client.query(sql, [1_000_000])
            let wholeRSS = try TestDatabase.residentBytes()
            TestDatabase.logger.info("fetched 1,000,000 rows whole (comparison)", [
                "seconds": "\(clock.now - fullStart)", "rows": "\(whole.count)",
                "rss_growth_mb": Self.megabytes(wholeRSS - after),
            ])
            await client.shutdown()
        }

        @Test("a stream inside a caller's transaction keeps that transaction open; a throwing body stops it")
        func insideTransaction() async throws {
            struct Stop: Error {}
            let client = try await TestDatabase.client(maxConnections: 1)
            try await client.withTransaction { tx in
                var seen = 0
                try await tx.stream("SELECT g FROM generate_series(1, $1::int) g", [Int32(25)], batchSize: 10) { _ in
                    seen += 1
                }
                #expect(seen == 25)
                #expect(tx.isInTransaction)
            }
            var seen = 0
            await #expect(throws: Stop.self) {
                try await client.stream("SELECT g FROM generate_series(1, 100) g", batchSize: 7) { _ in
                    seen += 1
                    if seen == 10 { throw Stop() }
                }
            }
            #expect(seen == 10)
            #expect(client.statistics.open == 1, "the connection was cleaned up and kept")
            _ = try await client.query("SELECT 1")
            await client.shutdown()
        }

        static func megabytes(_ bytes: Int) -> String {
            String(format: "%.1f", Double(bytes) / 1_048_576)
        }
    }
}
