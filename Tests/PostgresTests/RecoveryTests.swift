import Foundation
import Postgres
import SharedTestSupport
import Testing

extension PostgresServerTests {
    /// The pool survives its connections dying: killed backends and a real server restart.
    @Suite("Reconnect")
    struct RecoveryTests {
        /// Opens `count` pooled connections at once and returns their backend pids.
        static func warm(_ client: PostgresClient, connections count: Int) async throws -> Set<Int> {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<count {
                    group.addTask {
                        try await client.query("SELECT pg_backend_pid() AS pid, pg_sleep(0.2)")[0].decode("pid", as: Int.self)
                    }
                }
                return try await group.reduce(into: Set<Int>()) { $0.insert($1) }
            }
        }

        @Test("idle pooled connections killed with pg_terminate_backend are replaced transparently")
        func terminatedBackends() async throws {
            let client = try await TestDatabase.client(maxConnections: 2)
            let before = try await Self.warm(client, connections: 2)
            #expect(before.count == 2)
            let admin = try await PostgresConnection.connect(TestDatabase.configuration())
            for pid in before {
                try await admin.execute("SELECT pg_terminate_backend($1::int, 5000)", [pid])
            }
            await admin.close()
            for _ in 0..<5 {
                let pid = try await client.query("SELECT pg_backend_pid() AS pid")[0].decode("pid", as: Int.self)
                #expect(!before.contains(pid))
            }
            await client.shutdown()
        }

        @Test("inside withConnection a dead connection is reported, not retried, and then replaced")
        func noRetryInsideTransaction() async throws {
            let client = try await TestDatabase.client(maxConnections: 1)
            let admin = try await PostgresConnection.connect(TestDatabase.configuration())
            do {
                try await client.withTransaction { tx in
                    let pid = try await tx.query("SELECT pg_backend_pid() AS pid")[0].decode("pid", as: Int.self)
                    try await admin.execute("SELECT pg_terminate_backend($1::int, 5000)", [pid])
                    _ = try await tx.query("SELECT 1")
                }
                Issue.record("the statement on a killed connection should fail")
            } catch let error as PostgresError {
                #expect(error.isConnectionFailure, "\(error)")
            }
            await admin.close()
            #expect(try await client.query("SELECT 3 AS three")[0].decode("three", as: Int.self) == 3)
            await client.shutdown()
        }

        /// Runs `<repo>/scripts/stack restart-postgres` (honouring `STACK_DIR` when set).
        /// - Returns: how long it took, in seconds.
        static func restartServer() async throws -> Double {
            let script = ScriptRunner.repositoryRoot.appendingPathComponent("scripts/stack")
            let start = ContinuousClock.now
            let run = try await ScriptRunner.output(["/bin/bash", script.path, "restart-postgres"])
            let (status, output) = (run.status, run.output)
            guard status == 0 else {
                throw TestFailure(
                    "\(script.path) restart-postgres exited \(status): \(output) (when testing from a worktree, set STACK_DIR to the stack's folder, e.g. STACK_DIR=/work/main/.stack)")
            }
            let (seconds, attoseconds) = (ContinuousClock.now - start).components
            return Double(seconds) + Double(attoseconds) / 1e18
        }
    }
}
