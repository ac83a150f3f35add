import Foundation
import Postgres

/// One Live Activity row as support sees it (`live_activities`): tokens are the caller's to mask before they are shown.
public struct ActivityLife: Sendable, Equatable {
    public var matchId: String
    public var userId: String
    public var deviceId: String
    public var status: LiveActivityStatus
    public var endReason: LiveActivityEndReason?
    public var delivery: LiveActivityDeliveryMode
    public var channelId: String?
    public var updateToken: String?
    public var apnsEnvironment: String?
    /// Push-to-starts sent for this row, ever (`start_attempts`).
    public var startAttempts: Int
    /// The row's first start (`created_at`).
    public var createdAt: Date
    /// The last transition (`updated_at`): when it ENDED, for an ended row.
    public var updatedAt: Date
    /// When the current activity's update token was first registered (ACTIVE).
    public var activatedAt: Date?

    public init(matchId: String, userId: String, deviceId: String, status: LiveActivityStatus, endReason: LiveActivityEndReason? = nil, delivery: LiveActivityDeliveryMode, channelId: String? = nil, updateToken: String? = nil, apnsEnvironment: String? = nil, startAttempts: Int, createdAt: Date, updatedAt: Date, activatedAt: Date? = nil) {
        self.matchId = matchId
        self.userId = userId
        self.deviceId = deviceId
        self.status = status
        self.endReason = endReason
        self.delivery = delivery
        self.channelId = channelId
        self.updateToken = updateToken
        self.apnsEnvironment = apnsEnvironment
        self.startAttempts = startAttempts
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.activatedAt = activatedAt
    }
}

/// A device as support sees it (`devices`): tokens are the caller's to mask.
public struct DeviceFacts: Sendable, Equatable {
    public var userId: String
    public var deviceId: String
    public var pushToken: String?
    public var pushToStartToken: String?
    public var apnsEnvironment: String
    public var appVersion: String?
    public var osVersion: String?
    public var channelCapable: Bool
    public var updatedAt: Date

    public init(userId: String, deviceId: String, pushToken: String? = nil, pushToStartToken: String? = nil, apnsEnvironment: String, appVersion: String? = nil, osVersion: String? = nil, channelCapable: Bool, updatedAt: Date) {
        self.userId = userId
        self.deviceId = deviceId
        self.pushToken = pushToken
        self.pushToStartToken = pushToStartToken
        self.apnsEnvironment = apnsEnvironment
        self.appVersion = appVersion
        self.osVersion = osVersion
        self.channelCapable = channelCapable
        self.updatedAt = updatedAt
    }
}

extension LiveActivityStore {
    // MARK: - Reads of support's view

    /// A user's activities (of one device, of one match, when given), newest first, at most `limit`.
    public func activities(userId: String, deviceId: String? = nil, matchId: String? = nil, limit: Int = 100) async throws -> [ActivityLife] {
        try await database.query(
            """
            SELECT match_id, user_id, device_id, status, end_reason, delivery, channel_id, update_token, apns_env, start_attempts,
                   created_at, updated_at, activated_at
            FROM live_activities
            WHERE user_id = $1 AND ($2::text IS NULL OR device_id = $2) AND ($3::text IS NULL OR match_id = $3)
            ORDER BY updated_at DESC, match_id, device_id LIMIT $4
            """, [userId, deviceId, matchId, limit], prepared: true
        ).map { row in
            ActivityLife(
                matchId: try row.decode("match_id"), userId: try row.decode("user_id"), deviceId: try row.decode("device_id"),
                status: LiveActivityStatus(rawValue: try row.decode("status", as: String.self)) ?? .ended,
                endReason: try row.decode("end_reason", as: String?.self).flatMap(LiveActivityEndReason.init(rawValue:)),
                delivery: LiveActivityDeliveryMode(rawValue: try row.decode("delivery", as: String.self)) ?? .token,
                channelId: try row.decode("channel_id", as: String?.self), updateToken: try row.decode("update_token", as: String?.self),
                apnsEnvironment: try row.decode("apns_env", as: String?.self), startAttempts: try row.decode("start_attempts"),
                createdAt: try row.decode("created_at"), updatedAt: try row.decode("updated_at"),
                activatedAt: try row.decode("activated_at", as: Date?.self))
        }
    }
}

extension DeviceStore {
    /// A user's devices (one, when `deviceId` is given), most recently registered first.
    public func devices(userId: String, deviceId: String? = nil) async throws -> [DeviceFacts] {
        try await database.query(
            """
            SELECT user_id, device_id, push_token, push_to_start_token, apns_env, app_version, os_version, channel_capable, updated_at
            FROM devices WHERE user_id = $1 AND ($2::text IS NULL OR device_id = $2) ORDER BY updated_at DESC, device_id LIMIT 100
            """, [userId, deviceId], prepared: true
        ).map { row in
            DeviceFacts(
                userId: try row.decode("user_id"), deviceId: try row.decode("device_id"), pushToken: try row.decode("push_token", as: String?.self),
                pushToStartToken: try row.decode("push_to_start_token", as: String?.self), apnsEnvironment: try row.decode("apns_env"),
                appVersion: try row.decode("app_version", as: String?.self), osVersion: try row.decode("os_version", as: String?.self),
                channelCapable: try row.decode("channel_capable"), updatedAt: try row.decode("updated_at"))
        }
    }
}
