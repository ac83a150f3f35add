import Runtime

/// Applies `PostgresMigration`s, recording them in `schema_migrations(version, name, applied_at)` in
/// the first schema of the `search_path`.
///
/// Each migration runs in its own transaction that first takes `pg_advisory_xact_lock(lockKey)`,
/// then checks `schema_migrations`, so two processes migrating at once apply each version exactly
/// once: the second waits for the first and then finds the version recorded.
public struct PostgresMigrator: Sendable {
    /// The advisory lock key every migrator uses ("sightscreen.migrations").
    public static let lockKey = PostgresAdvisoryLock.key(for: "sightscreen.migrations")

    private let client: PostgresClient
    private let logger: Logger

    public init(_ client: PostgresClient, logger: Logger? = nil) {
        self.client = client
        self.logger = logger ?? client.logger.child("migrations")
    }

    /// Applies every migration whose version is not yet recorded, in ascending order.
    /// - Returns: the versions this call applied (empty when all were applied before).
    /// - Throws: `invalidMigration` for duplicate or non-positive versions (before touching the
    ///   database), or the failing migration's `PostgresError` (earlier ones stay applied).
    @discardableResult
    public func apply(_ migrations: [PostgresMigration]) async throws -> [Int] {
        var seen = Set<Int>()
        for migration in migrations {
            guard migration.version > 0 else {
                throw PostgresError.invalidMigration(version: migration.version, reason: "versions start at 1")
            }
            guard seen.insert(migration.version).inserted else {
                throw PostgresError.invalidMigration(version: migration.version, reason: "duplicate version")
            }
        }
        try await client.withTransaction { connection in
            _ = try await connection.query("SELECT pg_advisory_xact_lock($1)", [Self.lockKey], prepared: false, timeout: nil)
            try await connection.executeScript(
                """
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version     bigint      PRIMARY KEY,
                    name        text        NOT NULL,
                    applied_at  timestamptz NOT NULL DEFAULT now()
                )
                """)
        }
        var applied: [Int] = []
        for migration in migrations.sorted(by: { $0.version < $1.version }) {
            let didApply = try await client.withTransaction { connection in
                _ = try await connection.query("SELECT pg_advisory_xact_lock($1)", [Self.lockKey], prepared: false, timeout: nil)
                let existing = try await connection.query(
                    "SELECT 1 FROM schema_migrations WHERE version = $1", [migration.version])
                guard existing.isEmpty else { return false }
                try await connection.executeScript(migration.sql)
                try await connection.execute(
                    "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", [migration.version, migration.name])
                return true
            }
            if didApply {
                applied.append(migration.version)
                logger.info("migration applied", ["version": String(migration.version), "name": migration.name])
            }
        }
        return applied
    }

    /// The versions recorded in `schema_migrations`, ascending (empty when the table does not exist).
    /// - Throws: `PostgresError`.
    public func appliedVersions() async throws -> [Int] {
        let exists = try await client.query("SELECT to_regclass('schema_migrations') IS NOT NULL AS present")
        guard try exists.first?.decode("present", as: Bool.self) == true else { return [] }
        return try await client.query("SELECT version FROM schema_migrations ORDER BY version").map {
            try $0.decode("version", as: Int.self)
        }
    }
}
