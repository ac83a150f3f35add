import Foundation
import Postgres

/// The rows the orchestrator reads, written as the api would: a device with its tokens, a follow.
public enum FollowerRows {
    /// A sandbox device of `user` with a push token and, when given, a push-to-start token.
    public static func device(_ database: PostgresClient, user: String, device: String, pushToStart: String?) async throws {
        try await database.execute(
            "INSERT INTO devices (user_id, device_id, push_token, push_to_start_token, apns_env) VALUES ($1, $2, $3, $4, 'sandbox')",
            [user, device, String(repeating: "a", count: 64), pushToStart])
    }

    /// `user` follows `match`.
    public static func follow(_ database: PostgresClient, user: String, match: String) async throws {
        try await database.execute("INSERT INTO match_follows (user_id, match_id) VALUES ($1, $2)", [user, match])
    }

    /// A 160-hex-digit token made of byte `n`.
    public static func token(_ n: Int) -> String { String(repeating: String(format: "%02x", n), count: 80) }
}
