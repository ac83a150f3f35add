import APNsMock
import Foundation

/// The rules the checker reads from APNs' side alone: mock-apns's accepted pushes (`MockAPNsDelivery`, broadcast copies
/// under their subscriber) and refused ones (`MockAPNsRefusal`), merged per token in the order the mock answered them
/// (one sequence). Never the services' own counters.
///
/// - `olderAfterNewer`: a token's accepted `aps.timestamp`s never decrease.
/// - `pushAfterRefusal`: after APNs refused a token (410, or 400 BadDeviceToken) at time R, no push to it carries
///   content newer than R + `grace` (what was already queued may still arrive and be refused; anything made after the
///   refusal was known must not be sent).
/// - `duplicate`: a token accepts a payload once. A second copy is excused only when it is a replay of the same request
///   (same apns-id) whose first copy was accepted inside one of `excused` (a kill -9 of apns-sender: requests on the
///   wire are sent again); excused copies are counted, not reported.
/// - `pushAfterEnd`: after a Live Activity's end push (`aps.event` "end") was accepted for a token (per broadcast
///   channel, for a channel's copies), nothing else is accepted for it; a replay of the end itself is the duplicate
///   rule's.
public struct PushLogRules: Sendable {
    /// Time after a refusal during which pushes already made may still go out (la-coordinator learns of it through
    /// `push.token-invalid` and ends the row), in milliseconds.
    public var graceMilliseconds: Int64
    /// Windows of mock time (Unix ms) in which a replayed push is excused.
    public var excused: [ClosedRange<Int64>]

    public init(graceMilliseconds: Int64 = 10_000, excused: [ClosedRange<Int64>] = []) {
        self.graceMilliseconds = graceMilliseconds
        self.excused = excused
    }

    /// What the rules found.
    public struct Report: Sendable, Equatable {
        public var violations: [MatchDayViolation]
        /// Tokens looked at, accepted pushes and refusals read.
        public var tokens: Int
        public var accepted: Int
        public var refused: Int
        /// Replayed copies excused by a crash window.
        public var excusedDuplicates: Int
    }

    /// Reasons after which APNs will never take the token again.
    static let finalRefusals: Set<String> = ["Unregistered", "BadDeviceToken", "DeviceTokenNotForTopic"]

    public func check(deliveries: [MockAPNsDelivery], refusals: [MockAPNsRefusal]) -> Report {
        enum Entry {
            case accepted(MockAPNsDelivery)
            case refused(MockAPNsRefusal)
            var sequence: Int {
                switch self {
                case .accepted(let delivery): delivery.sequence ?? 0
                case .refused(let refusal): refusal.sequence
                }
            }
        }
        var byToken: [String: [Entry]] = [:]
        for delivery in deliveries { byToken[delivery.token, default: []].append(.accepted(delivery)) }
        for refusal in refusals { if let token = refusal.token { byToken[token, default: []].append(.refused(refusal)) } }
        var violations: [MatchDayViolation] = []
        var excusedDuplicates = 0
        var ends = PayloadEvents()
        for token in byToken.keys.sorted() {
            let entries = byToken[token]!.sorted { $0.sequence < $1.sequence }
            let masked = Self.mask(token)
            var newest: (timestamp: Int64, sequence: Int)?
            var refusedAt: (at: Int64, sequence: Int, reason: String)?
            var seen: [String: MockAPNsDelivery] = [:]
            var endedAt: [String: Int] = [:]  // the stream (the token's own, or a channel's copies) → the end's sequence
            var endPushes: [String: MockAPNsDelivery] = [:]
            for entry in entries {
                let timestamp: Int64?
                let receivedAt: Int64
                switch entry {
                case .accepted(let delivery): (timestamp, receivedAt) = (delivery.apsTimestamp, delivery.receivedAt)
                case .refused(let refusal): (timestamp, receivedAt) = (refusal.apsTimestamp, refusal.receivedAt)
                }
                if let refused = refusedAt {
                    // The content's own time when it has one (seconds), else when the push arrived.
                    let madeAt = timestamp.map { $0.multipliedReportingOverflow(by: 1000).partialValue } ?? receivedAt
                    if madeAt > refused.at + graceMilliseconds {
                        violations.append(MatchDayViolation(
                            rule: .pushAfterRefusal, token: masked, sequences: [refused.sequence, entry.sequence],
                            detail: "APNs refused the token (\(refused.reason)) at \(refused.at) ms; a push with content of \(madeAt) ms came after"))
                    }
                }
                switch entry {
                case .refused(let refusal):
                    if refusedAt == nil, Self.finalRefusals.contains(refusal.reason) {
                        refusedAt = (refusal.receivedAt, refusal.sequence, refusal.reason)
                    }
                case .accepted(let delivery):
                    if let timestamp = delivery.apsTimestamp {
                        if let newest, timestamp < newest.timestamp {
                            violations.append(MatchDayViolation(
                                rule: .olderAfterNewer, token: masked, sequences: [newest.sequence, entry.sequence],
                                detail: "aps.timestamp \(timestamp) accepted after \(newest.timestamp)"))
                        } else {
                            newest = (timestamp, entry.sequence)
                        }
                    }
                    let stream = delivery.channelId ?? ""
                    let isEnd = ends.isEnd(delivery.payload)
                    if let end = endedAt[stream] {
                        // The end's own replay (same payload, same apns-id) is the duplicate rule's to judge.
                        if !(isEnd && seen[delivery.payload]?.apnsID == delivery.apnsID) {
                            let endPush = endPushes[stream]
                            violations.append(MatchDayViolation(
                                rule: .pushAfterEnd, token: masked, sequences: [end, entry.sequence],
                                detail: "a push accepted after the activity's end push\(delivery.channelId.map { " (channel \($0))" } ?? ""): "
                                    + "\(delivery.pushType) priority \(delivery.priority), \(isEnd ? "an end" : "not an end"), aps.timestamp "
                                    + "\(delivery.apsTimestamp.map(String.init) ?? "none") after \(endPush?.apsTimestamp.map(String.init) ?? "none"), "
                                    + "apns-id \(endPush?.apnsID == delivery.apnsID ? "the same" : "another"), \(delivery.receivedAt - (endPush?.receivedAt ?? 0)) ms later"))
                        }
                    } else if isEnd {
                        endedAt[stream] = entry.sequence
                        endPushes[stream] = delivery
                    }
                    if let first = seen[delivery.payload] {
                        if first.apnsID == delivery.apnsID, excused.contains(where: { $0.contains(first.receivedAt) }) {
                            excusedDuplicates += 1
                        } else {
                            violations.append(MatchDayViolation(
                                rule: .duplicate, token: masked, sequences: [first.sequence ?? 0, entry.sequence],
                                detail: "the same payload accepted twice (apns-id \(first.apnsID == delivery.apnsID ? "the same" : "different"), priority \(delivery.priority))"))
                        }
                    } else {
                        seen[delivery.payload] = delivery
                    }
                }
            }
        }
        return Report(violations: violations, tokens: byToken.count, accepted: deliveries.count, refused: refusals.count,
                      excusedDuplicates: excusedDuplicates)
    }

    /// "…" and the last 8 characters (the checker never prints a whole token).
    static func mask(_ token: String) -> String { "…" + token.suffix(8) }
}

/// The `aps.event` of each distinct payload ("start", "update", "end"; nil for none), parsed once (a job's pushes share one).
struct PayloadEvents {
    private var known: [String: String?] = [:]

    mutating func event(_ payload: String) -> String? {
        if let answer = known[payload] { return answer }
        let object = try? JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any]
        let answer = (object?["aps"] as? [String: Any])?["event"] as? String
        known[payload] = answer
        return answer
    }

    mutating func isEnd(_ payload: String) -> Bool { event(payload) == "end" }
}
