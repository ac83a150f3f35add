import Foundation
import Synchronization
import Runtime

/// Encoded push-to-start bodies by (match, state text), so the many follows of a live match encode its
/// start payload once per state instead of once per device and request.
///
/// A body differs from second to second only in its two times (`timestamp` and `stale-date` = timestamp +
/// a fixed offset). The cache keeps each body as a template: `make` is called once with a sentinel time,
/// and the two numbers are found in its bytes (as `"stale-date":N` and `"timestamp":N`, which cannot occur
/// inside a JSON string because a quote there is escaped) and replaced by the real ones on every use. The
/// sentinel has as many digits as any time until 2286, so the size, and the 4 KB check `make` did, hold.
/// When the numbers cannot be found the body is not cached.
///
/// The key is the whole text the payload is built from (`FollowOutcome.stateText`), so a changed state is a
/// different key and a stale body is never returned. Bounded: when full, every entry is dropped.
final class StartPayloadCache: Sendable {
    /// The time bodies are made at for the template (10 digits like every real one).
    static let sentinel = Date(timeIntervalSince1970: 3_999_999_999)

    private struct Key: Hashable {
        var matchId: String
        var stateText: String
        /// The start's broadcast channel (`input-push-channel`), nil for a token start.
        var channelId: String?
    }

    /// A body cut around its two times.
    struct Template: Sendable {
        var beforeStale: String
        var staleOffset: Int64
        var betweenTimes: String
        var afterTimestamp: String

        /// Cuts `body` made at `sentinel`; nil when its times are not where a start body has them.
        init?(body: String, sentinel: Int64) {
            guard let timestampRange = body.range(of: "\"timestamp\":\(sentinel)", options: .backwards) else { return nil }
            let beforeTimestamp = body[..<timestampRange.lowerBound]
            let stalePrefix = "\"stale-date\":"
            guard let staleKey = beforeTimestamp.range(of: stalePrefix, options: .backwards) else { return nil }
            let digits = beforeTimestamp[staleKey.upperBound...].prefix { $0.isNumber }
            guard let stale = Int64(digits) else { return nil }
            beforeStale = String(body[..<staleKey.upperBound])
            staleOffset = stale - sentinel
            betweenTimes = String(beforeTimestamp[digits.endIndex...]) + "\"timestamp\":"
            afterTimestamp = String(body[timestampRange.upperBound...])
        }

        /// The body at `timestamp`.
        func render(_ timestamp: Int64) -> String {
            beforeStale + String(timestamp + staleOffset) + betweenTimes + String(timestamp) + afterTimestamp
        }
    }

    /// Most templates kept.
    let capacity: Int
    private let templates = LockedValue([Key: Template]())

    init(capacity: Int = 4096) {
        self.capacity = max(1, capacity)
    }

    /// The body for (`matchId`, `stateText`) at `now` (to the second). `make(date)` must build it from
    /// exactly that match and text at `date`; nil when it cannot be made.
    func payload(matchId: String, stateText: String, channelId: String? = nil, now: Date, make: (Date) -> String?) -> String? {
        let key = Key(matchId: matchId, stateText: stateText, channelId: channelId)
        let timestamp = Int64(now.timeIntervalSince1970)
        if let template = templates.withLock({ $0[key] }) { return template.render(timestamp) }
        guard let made = make(Self.sentinel) else { return nil }
        guard let template = Template(body: made, sentinel: Int64(Self.sentinel.timeIntervalSince1970)) else {
            return make(now)
        }
        templates.withLock { templates in
            if templates.count >= capacity { templates.removeAll(keepingCapacity: true) }
            templates[key] = template
        }
        return template.render(timestamp)
    }
}
