import Contracts
import Foundation
import Postgres

/// The caller's devices and their APNs tokens.
struct DeviceStore: Sendable {
    let database: PostgresClient

    /// Upserts the device; a token left out (null) keeps the stored one, because the app registers
    /// its device token and its push-to-start token at different moments; an OS version left out keeps the
    /// stored one. The device is channel-capable when the posting build subscribes to channels
    /// (`supportsBroadcastChannels`; a build that does not say does not) and its iOS version, sent now or stored
    /// before, is 18 or later.
    func upsert(
        userId: String, deviceId: String, pushToken: String?, pushToStartToken: String?, env: APNsEnvironment, appVersion: String,
        osVersion: String? = nil, supportsBroadcastChannels: Bool = false, now: Date
    ) async throws -> APIBodies.DeviceResponse {
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
            """, [userId, deviceId, pushToken, pushToStartToken, env.rawValue, appVersion, now, osVersion, supportsBroadcastChannels],
            prepared: true)
        guard let row = rows.first else { throw APIFailure.unexpected("device upsert returned no row") }
        return APIBodies.DeviceResponse(
            deviceId: deviceId, hasPushToken: try row.decode("has_push"), hasPushToStartToken: try row.decode("has_start"),
            apnsEnvironment: APNsEnvironment(rawValue: try row.decode("apns_env")) ?? env,
            appVersion: try row.decode("app_version", as: String?.self), updatedAt: ISOTime.string(try row.decode("updated_at")),
            osVersion: try row.decode("os_version", as: String?.self), channelCapable: try row.decode("channel_capable"))
    }

    /// Deletes the caller's device; false when the caller has no such device.
    func delete(userId: String, deviceId: String) async throws -> Bool {
        try await database.execute("DELETE FROM devices WHERE user_id = $1 AND device_id = $2", [userId, deviceId], prepared: true) > 0
    }
}
