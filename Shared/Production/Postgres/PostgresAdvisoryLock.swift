import Runtime
import Synchronization

/// A session-level `pg_advisory_lock` held on its own dedicated connection (outside the pool), for
/// singleton loops (orchestrator, poller, TTL sweep) that any number of replicas may run.
///
/// The lock lasts as long as that session: `release()` unlocks and closes it; dropping the last
/// reference closes the connection, which also releases the lock server-side. If the server
/// restarts, the lock is lost: loops should call `isHeld()` before each round.
public final class PostgresAdvisoryLock: Sendable {
    /// The 64-bit lock key.
    public let key: Int64
    private let connection: PostgresConnection
    private let released = Atomic<Bool>(false)

    init(key: Int64, connection: PostgresConnection) {
        self.key = key
        self.connection = connection
    }

    deinit {
        if !released.load(ordering: .acquiring) { connection.closeInBackground() }
    }

    /// True while the session holding the lock is alive and has not released it (one round trip).
    public func isHeld() async -> Bool {
        guard !released.load(ordering: .acquiring) else { return false }
        do {
            let rows = try await connection.query(
                """
                SELECT count(*) AS held FROM pg_locks
                WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND granted
                  AND classid = (($1 >> 32) & 4294967295)::oid AND objid = ($1 & 4294967295)::oid AND objsubid = 1
                """, [key])
            return try rows.first?.decode("held", as: Int.self) ?? 0 > 0
        } catch {
            return false
        }
    }

    /// Unlocks (`pg_advisory_unlock`) and closes the dedicated connection. Safe to call twice.
    public func release() async {
        guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if !connection.isBroken { _ = try? await connection.query("SELECT pg_advisory_unlock($1)", [key]) }
        await connection.close()
    }

    /// A stable 64-bit key for a lock name (FNV-1a of its UTF-8 bytes), e.g. `key(for: "orchestrator")`.
    public static func key(for name: String) -> Int64 {
        Int64(bitPattern: FNV1a.hash64(name))
    }
}

extension PostgresClient {
    /// Tries once, without waiting, to take the session-level advisory lock `key` on a new
    /// dedicated connection (it does not use a pool slot).
    /// - Returns: the held lock, or nil when another session holds it.
    /// - Throws: `connectionFailed` or `queryFailed`.
    public func tryAdvisoryLock(key: Int64) async throws -> PostgresAdvisoryLock? {
        let connection = try await PostgresConnection.connect(configuration, logger: logger)
        do {
            let rows = try await connection.query("SELECT pg_try_advisory_lock($1) AS locked", [key])
            if try rows.first?.decode("locked", as: Bool.self) == true {
                return PostgresAdvisoryLock(key: key, connection: connection)
            }
        } catch {
            await connection.close()
            throw error
        }
        await connection.close()
        return nil
    }
}
