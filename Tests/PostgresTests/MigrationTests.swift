import Foundation
import Postgres
import Schema
import Testing

extension PostgresServerTests {
    /// Migrations run in a fresh schema per test (via the connection's search_path), never in `public`.
    @Suite("Migrations")
    struct MigrationTests {
        /// Creates a fresh schema, runs `body` with a client whose search_path is that schema, drops it.
        static func withFreshSchema(_ body: (PostgresClient, String) async throws -> Void) async throws {
            let admin = try await TestDatabase.client(maxConnections: 1)
            let schema = TestDatabase.uniqueName("mig")
            try await admin.execute("CREATE SCHEMA \(schema)")
            let client = try await TestDatabase.client(maxConnections: 3, searchPath: [schema])
            do {
                try await body(client, schema)
            } catch {
                await client.shutdown()
                try await admin.execute("DROP SCHEMA \(schema) CASCADE")
                await admin.shutdown()
                throw error
            }
            await client.shutdown()
            try await admin.execute("DROP SCHEMA \(schema) CASCADE")
            await admin.shutdown()
        }

        @Test("Sightscreen migrations apply once and create every table of the design")
        func applyOnce() async throws {
            try await Self.withFreshSchema { client, schema in
                let migrator = PostgresMigrator(client)
                #expect(try await migrator.apply(SightscreenMigrations.all) == SightscreenMigrations.all.map(\.version))
                #expect(try await migrator.apply(SightscreenMigrations.all) == [])
                #expect(try await migrator.appliedVersions() == SightscreenMigrations.all.map(\.version))

                let tables = try await client.query(
                    "SELECT table_name FROM information_schema.tables WHERE table_schema = $1", [schema]
                ).map { try $0.decode("table_name", as: String.self) }
                #expect(Set(tables) == [
                    "devices", "match_follows", "live_activities", "active_matches", "matches", "app_config",
                    "feed_cursors", "feed_balls", "schema_migrations", "broadcast_channels",
                    "push_deliveries", "delivery_jobs", "delivery_record_offsets", "delivery_record_gaps", "delivery_record_matches",
                    "delivery_outcomes",
                ])

                let config = try await client.query("SELECT min_version, maintenance, message FROM app_config")
                #expect(config.count == 1)
                #expect(try config[0].decode("min_version", as: String.self) == "1.0.0")
                #expect(try config[0].decode("maintenance", as: Bool.self) == false)
                #expect(try config[0].decode("message", as: String.self) == "")

                let fanout = try await client.query(
                    "SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname = $2",
                    [schema, "live_activities_active_idx"])[0].decode("indexdef", as: String.self)
                #expect(fanout.contains("(match_id) INCLUDE (update_token, user_id, device_id)"))
                #expect(fanout.contains("WHERE (status = 'active'::text)"))
                let indexes = try await client.query(
                    "SELECT indexname FROM pg_indexes WHERE schemaname = $1", [schema]
                ).map { try $0.decode("indexname", as: String.self) }
                #expect(indexes.contains("match_follows_match_id_idx"))
                #expect(indexes.contains("live_activities_expires_at_idx"))

                do {
                    try await client.execute(
                        "INSERT INTO live_activities (match_id, user_id, device_id, status) VALUES ($1, $2, $3, $4)",
                        ["m1", "u1", "d1", "bogus"])
                    Issue.record("the status CHECK should refuse 'bogus'")
                } catch let error as PostgresError {
                    #expect(error.sqlState == PostgresSQLState.checkViolation)
                }
                let ended = try await client.execute(
                    """
                    INSERT INTO live_activities (match_id, user_id, device_id, status, end_reason, expires_at)
                    VALUES ($1, $2, $3, 'ended', 'token_invalid', $4)
                    """, ["m1", "u1", "d1", Date()])
                #expect(ended == 1)
                await #expect(throws: PostgresError.self) {
                    try await client.execute("INSERT INTO app_config (min_version) VALUES ($1)", ["2.0.0"])
                }
            }
        }

        @Test("two migrators racing apply each version exactly once")
        func concurrentMigrators() async throws {
            try await Self.withFreshSchema { client, schema in
                let migrations = (1...5).map {
                    PostgresMigration(
                        version: $0, name: "step \($0)",
                        sql: "CREATE TABLE step_\($0) (id int); INSERT INTO step_\($0) VALUES (\($0));")
                }
                let second = try await TestDatabase.client(maxConnections: 2, searchPath: [schema])
                async let first = PostgresMigrator(client).apply(migrations)
                async let other = PostgresMigrator(second).apply(migrations.reversed())
                let (a, b) = try await (first, other)
                #expect((a + b).sorted() == [1, 2, 3, 4, 5])
                #expect(a == a.sorted() && b == b.sorted(), "each applies in version order")
                let recorded = try await client.query("SELECT count(*) AS n FROM schema_migrations")[0]
                #expect(try recorded.decode("n", as: Int.self) == 5)
                await second.shutdown()
            }
        }

        @Test("duplicate versions are refused before touching the database")
        func duplicates() async throws {
            try await Self.withFreshSchema { client, _ in
                let bad = [
                    PostgresMigration(version: 1, name: "a", sql: "SELECT 1"),
                    PostgresMigration(version: 1, name: "b", sql: "SELECT 1"),
                ]
                await #expect(throws: PostgresError.self) { try await PostgresMigrator(client).apply(bad) }
                let versions = try await PostgresMigrator(client).appliedVersions()
                #expect(versions.isEmpty)
            }
        }
    }
}
