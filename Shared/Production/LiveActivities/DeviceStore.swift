import Foundation
import Postgres

/// A device as `DeviceStore.upsert` left it.
public struct DeviceRecord: Sendable, Equatable {
    public var hasPushToken: Bool
    public var hasPushToStartToken: Bool
    /// `devices.apns_env` ("production" or "sandbox").
    public var apnsEnvironment: String
    public var appVersion: String?
    public var updatedAt: Date
    public var osVersion: String?
    /// Started on broadcast channels (iOS 18 or later and a build that subscribes to them).
    public var channelCapable: Bool

    public init(hasPushToken: Bool, hasPushToStartToken: Bool, apnsEnvironment: String, appVersion: String?, updatedAt: Date,
                osVersion: String?, channelCapable: Bool) {
        self.hasPushToken = hasPushToken
        self.hasPushToStartToken = hasPushToStartToken
        self.apnsEnvironment = apnsEnvironment
        self.appVersion = appVersion
        self.updatedAt = updatedAt
        self.osVersion = osVersion
        self.channelCapable = channelCapable
    }
}

/// Why a `DeviceStore` call failed other than by a PostgreSQL error.
public enum DeviceStoreError: Error, Equatable, CustomStringConvertible {
    /// The upsert of (user, device) answered no row.
    case upsertReturnedNoRow(userId: String, deviceId: String)

    public var description: String {
        switch self {
        case .upsertReturnedNoRow(let userId, let deviceId): "device upsert of user \(userId) device \(deviceId) returned no row"
        }
    }
}

/// The one store of the `devices` table (a user's devices and their APNs tokens): the api's registration and
/// removal, la-coordinator's clearing of tokens APNs refused, the admin counts. Other stores only read it in joins.
public struct DeviceStore: Sendable {
    public let database: PostgresClient

    public init(database: PostgresClient) {
        self.database = database
    }

    /// Upserts the device; a token left out (null) keeps the stored one, because the app registers
    /// its device token and its push-to-start token at different moments; an OS version left out keeps the
    /// stored one. The device is channel-capable when the posting build subscribes to channels
    /// (`supportsBroadcastChannels`; a build that does not say does not) and its iOS version, sent now or stored
    /// before, is 18 or later.
    public func upsert(
        userId: String, deviceId: String, pushToken: String?, pushToStartToken: String?, environment: String, appVersion: String,
        osVersion: String? = nil, supportsBroadcastChannels: Bool = false, now: Date
    ) async throws -> DeviceRecord {
        let rows = try await database.query(
            """
            INSERT INTO devices (user_id, device_id, push_token, push_to_start_token, apns_env, app_version, updated_at, os_version,
                                 channel_capable)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8::text, $9 AND coalesce(split_part($8::text, '.', 1)::int, 0) >= 18)
            ON CONFLICT (user_id, device_id) DO UPDATE SET
                push_token = COALESCE(EXCLUDED.push_token, devices.push_token),
                push_to_start_token = COALESCE(EXCLUDED.push_to_start_token, devices.push_to_start_token),
                apns_env = EXCLUDED.apns_env, app_version = EXCLUDED.app_version, updated_at = EXCLUDED.updated_at,
                os_version = COALESCE(EXCLUDED.os_version, devices.os_version),
                channel_capable = $9 AND coalesce(split_part(COALESCE(EXCLUDED.os_version, devices.os_version), '.', 1)::int, 0) >= 18
            RETURNING push_token IS NOT NULL AS has_push, push_to_start_token IS NOT NULL AS has_start, apns_env, app_version, updated_at,
                      os_version, channel_capable
            """, [userId, deviceId, pushToken, pushToStartToken, environment, appVersion, now, osVersion, supportsBroadcastChannels],
            prepared: true)
        guard let row = rows.first else { throw DeviceStoreError.upsertReturnedNoRow(userId: userId, deviceId: deviceId) }
        return DeviceRecord(
            hasPushToken: try row.decode("has_push"), hasPushToStartToken: try row.decode("has_start"),
            apnsEnvironment: try row.decode("apns_env"), appVersion: try row.decode("app_version", as: String?.self),
            updatedAt: try row.decode("updated_at"), osVersion: try row.decode("os_version", as: String?.self),
            channelCapable: try row.decode("channel_capable"))
    }

    /// Deletes the user's device; false when the user has no such device.
    public func delete(userId: String, deviceId: String) async throws -> Bool {
        // The device's delivery record goes with it (privacy: nothing of a deleted device is kept).
        try await database.execute(
            """
            WITH record AS (DELETE FROM push_deliveries WHERE user_id = $1 AND device_id = $2)
            DELETE FROM devices WHERE user_id = $1 AND device_id = $2
            """, [userId, deviceId], prepared: true) > 0
    }

    /// A device token APNs refused: cleared if the device still holds that exact token (a rotated one stays).
    /// - Returns: the rows changed (0 on a replay or after a rotation).
    public func clearPushToken(_ token: String, userId: String, deviceId: String) async throws -> Int {
        try await database.execute(
            "UPDATE devices SET push_token = NULL, updated_at = now() WHERE user_id = $1 AND device_id = $2 AND push_token = $3",
            [userId, deviceId, token])
    }

    /// A push-to-start token APNs refused: cleared if the device still holds that exact token, on `connection` (inside
    /// the caller's transaction, `LiveActivityStore.endPushToStartToken`).
    /// - Returns: the rows changed.
    public static func clearPushToStartToken(_ token: String, userId: String, deviceId: String,
                                             on connection: PostgresConnection) async throws -> Int {
        try await connection.query(
            """
            UPDATE devices SET push_to_start_token = NULL, updated_at = now()
            WHERE user_id = $1 AND device_id = $2 AND push_to_start_token = $3
            """, [userId, deviceId, token]).affectedRows
    }

    /// How many devices are registered (the admin pipeline view).
    public func count() async throws -> Int {
        try await database.query("SELECT count(*) AS n FROM devices").first?.decode("n", as: Int.self) ?? 0
    }
}
