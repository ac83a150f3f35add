import BroadcastChannels
import Contracts
import DeadLetter
import Foundation
import Kafka
import LiveActivities
import Postgres
import Runtime

/// What a `push.token-invalid` message changed.
enum TokenInvalidOutcome: String, Sendable, Equatable {
    /// Rows (or a device token) were ended/cleared.
    case ended
    /// Nothing still held that token (rotated or already ended): nothing changed.
    case stale
    /// Unreadable or incomplete: logged and skipped.
    case bad
}

/// Applies APNs' verdict that a token is dead, only where the database still holds that exact token.
///
/// - update token: the row (match, user, device) → ended/token_invalid if it is active with that
///   update token (a rotated token is not ended). Without a matchId, any active row with that token
///   of the device. The orchestrator later re-starts the follower (push-to-start).
/// - push-to-start token: `devices.push_to_start_token` is cleared if it still equals the token,
///   and the device's pending rows (of that match, or of every match without a matchId) → ended/
///   token_invalid, so the orchestrator does not keep pushing to a dead token; it starts again once
///   the app registers a new push-to-start token.
/// - device token: `devices.push_token` is cleared if it still equals the token.
/// - channel (a broadcast answered ChannelNotRegistered / BadChannelId): the ACTIVE channel with that id → INVALID
///   (the poller's channel manager creates it again) and its activities → ended/token_invalid (the orchestrator
///   starts them again, on the new channel).
struct TokenInvalidHandler: Sendable {
    let database: PostgresClient
    let logger: Logger
    let metrics: CoordinatorMetrics
    /// Where unreadable messages are parked (nil: only counted and skipped).
    var deadLetters: DeadLetterPublisher? = nil
    /// The time written on the rows it changes.
    var clock: any WallClock = SystemWallClock()

    /// Decodes and applies one message. Database failures are thrown (the caller retries).
    /// - Parameter source: the Kafka message the bytes came from; an unreadable one is dead-lettered
    ///   (acknowledged) before this returns.
    func handle(_ bytes: [UInt8], source: KafkaMessage? = nil) async throws -> TokenInvalidOutcome {
        let message: TokenInvalid
        do {
            message = try MessageCodec.decode(TokenInvalid.self, from: bytes)
        } catch {
            try await deadLetter(source, kind: error.kind, error.description)
            return bad(kind: error.kind, "\(error)")
        }
        guard !message.token.isEmpty, message.tokenKind == .channel || (!message.userId.isEmpty && !message.deviceId.isEmpty) else {
            let reason = message.token.isEmpty ? "token is required" : "userId and deviceId are required"
            try await deadLetter(source, kind: "invalid_field", reason)
            return bad(kind: "invalid_field", reason)
        }
        let changed: Int
        switch message.tokenKind {
        case .update: changed = try await endUpdateToken(message)
        case .pushToStart: changed = try await endPushToStart(message)
        case .device:
            changed = try await DeviceStore(database: database).clearPushToken(message.token, userId: message.userId, deviceId: message.deviceId)
        case .channel:
            // Both idempotent: a redelivered message changes nothing more.
            let invalidated = try await BroadcastChannelStore(database: database).markInvalid(
                channelId: message.token, reason: message.reason, now: clock.now())
            let ended = try await LiveActivityStore(database: database).endChannelActivities(channelId: message.token)
            metrics.rowsEnded(LiveActivityEndReason.tokenInvalid.rawValue, ended)
            changed = invalidated + ended
        }
        let outcome: TokenInvalidOutcome = changed > 0 ? .ended : .stale
        metrics.tokenInvalid(outcome.rawValue)
        logger.info("token invalid", [
            "event": "token_invalid", "kind": message.tokenKind.rawValue, "outcome": outcome.rawValue,
            "match_id": message.matchId ?? "", "user_id": message.userId, "device_id": message.deviceId, "reason": message.reason,
        ])
        return outcome
    }

    private func endUpdateToken(_ message: TokenInvalid) async throws -> Int {
        let ended = try await LiveActivityStore(database: database)
            .endUpdateToken(message.token, userId: message.userId, deviceId: message.deviceId, matchId: message.matchId)
        metrics.rowsEnded(LiveActivityEndReason.tokenInvalid.rawValue, ended)
        return ended
    }

    private func endPushToStart(_ message: TokenInvalid) async throws -> Int {
        let (cleared, ended) = try await LiveActivityStore(database: database)
            .endPushToStartToken(message.token, userId: message.userId, deviceId: message.deviceId, matchId: message.matchId)
        metrics.rowsEnded(LiveActivityEndReason.tokenInvalid.rawValue, ended)
        return cleared + ended
    }

    private func deadLetter(_ source: KafkaMessage?, kind: String, _ error: String) async throws {
        guard let deadLetters, let source else { return }
        try await deadLetters.publish(source, kind: kind, error: error)
    }

    private func bad(kind: String, _ reason: String) -> TokenInvalidOutcome {
        metrics.badMessage(topic: TokenInvalid.topic.name, kind: kind)
        metrics.tokenInvalid(TokenInvalidOutcome.bad.rawValue)
        logger.warning("skipping unreadable token-invalid message: \(reason)", ["event": "bad_message"])
        return .bad
    }
}
