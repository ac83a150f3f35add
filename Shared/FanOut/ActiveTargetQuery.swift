import Contracts
import Postgres

/// The SQL that lists a match's active Live Activity update tokens for fan-out, and its row decoder.
///
/// Ordered by (user_id, device_id) — the primary key's order within a match, so the server walks the
/// primary key (and merge-joins `devices` on its primary key) instead of sorting — which makes the
/// chunking, and so the job ids, the same every time the same rows are streamed. Every active row
/// is a target (one per device: multi-device users get the push on each). The APNs environment comes
/// from the device's row; a device without one is taken as production.
public enum ActiveTargetQuery {
    public static let sql = """
        SELECT la.update_token, COALESCE(d.apns_env, 'production'), la.user_id, la.device_id
        FROM live_activities la
        LEFT JOIN devices d ON d.user_id = la.user_id AND d.device_id = la.device_id
        WHERE la.match_id = $1 AND la.status = 'active' AND la.update_token IS NOT NULL
        ORDER BY la.user_id, la.device_id
        """

    /// The target of one row (columns by position: token, env, user, device).
    /// - Throws: `PostgresError.decode` for a malformed row.
    public static func target(_ row: PostgresRow) throws -> PushTarget {
        let env = try row.decode(1, as: String.self)
        return PushTarget(token: try row.decode(0, as: String.self), env: env == "sandbox" ? .sandbox : .production,
                          userId: try row.decode(2, as: String.self), deviceId: try row.decode(3, as: String.self))
    }
}
