import Foundation
import Postgres
import Testing

extension PostgresServerTests {
    @Suite("Streaming")
    struct StreamingTests {
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
