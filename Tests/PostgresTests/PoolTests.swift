import Foundation
import Postgres
import Testing

extension PostgresServerTests {
    @Suite("Pool")
    struct PoolTests {
        @Test("40 concurrent queries share at most 3 connections")
        func concurrency() async throws {
            let client = try await TestDatabase.client(maxConnections: 3)
            let pids = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<40 {
                    group.addTask {
                        let row = try await client.query(
                            "SELECT $1::bigint AS i, pg_backend_pid() AS pid, pg_sleep(0.02)", [index])[0]
                        #expect(try row.decode("i", as: Int.self) == index)
                        #expect(client.statistics.open <= 3)
                        return try row.decode("pid", as: Int.self)
                    }
                }
                return try await group.reduce(into: Set<Int>()) { $0.insert($1) }
            }
            #expect(pids.count <= 3)
            #expect(client.statistics.open <= 3)
            await client.shutdown()
            await #expect(throws: PostgresError.self) { try await client.query("SELECT 1") }
        }

        @Test("a caller waiting longer than acquireTimeout gets poolTimeout")
        func acquireTimeout() async throws {
            let client = try await TestDatabase.client(maxConnections: 1, acquireTimeout: .milliseconds(300))
            try await client.withConnection { _ in
                do {
                    _ = try await client.query("SELECT 1")
                    Issue.record("the only connection is busy; this should time out")
                } catch PostgresError.poolTimeout {}
            }
            _ = try await client.query("SELECT 1")
            await client.shutdown()
        }

        @Test("cancelling the task cancels the running statement on the server")
        func cancellation() async throws {
            let client = try await TestDatabase.client(maxConnections: 1)
            let observer = try await TestDatabase.client(maxConnections: 1)
            let marker = "cancel-\(UUID().uuidString)"
            let start = ContinuousClock.now
            let task = Task { try await client.query("SELECT pg_sleep(30) /* \(marker) */") }
            // Cancel once the statement runs on the server (a fixed wait could cancel it before it was sent).
            var running = false
            while !running, ContinuousClock.now - start < .seconds(20) {
                running = try await observer.query(
                    "SELECT count(*)::int FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%' || $1 || '%' AND pid <> pg_backend_pid()",
                    [marker]).first?.decode(0, as: Int.self) == 1
                if !running { try await Task.sleep(for: .milliseconds(20)) }
            }
            await observer.shutdown()
            #expect(running, "the statement reached the server")
            let cancelAt = ContinuousClock.now
            task.cancel()
            do {
                _ = try await task.value
                Issue.record("the statement should have been cancelled")
            } catch let error as PostgresError {
                #expect(error.sqlState == PostgresSQLState.queryCanceled)
            }
            #expect(ContinuousClock.now - cancelAt < .seconds(5), "cancelled, not run to its end (30 s)")
            #expect(try await client.query("SELECT 2 AS two")[0].decode("two", as: Int.self) == 2)
            await client.shutdown()
        }

        @Test("a session advisory lock is exclusive until released")
        func advisoryLock() async throws {
            let client = try await TestDatabase.client()
            let key = Int64.random(in: Int64.min...Int64.max)
            let lock = try #require(try await client.tryAdvisoryLock(key: key))
            #expect(await lock.isHeld())
            #expect(try await client.tryAdvisoryLock(key: key) == nil)
            await lock.release()
            #expect(!(await lock.isHeld()))
            let again = try #require(try await client.tryAdvisoryLock(key: key))
            await again.release()
            #expect(PostgresAdvisoryLock.key(for: "orchestrator") == PostgresAdvisoryLock.key(for: "orchestrator"))
            #expect(PostgresAdvisoryLock.key(for: "orchestrator") != PostgresAdvisoryLock.key(for: "poller"))
            await client.shutdown()
        }
    }
}
