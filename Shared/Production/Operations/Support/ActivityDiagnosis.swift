import Contracts
import DeliveryRecord
import Foundation
import LiveActivities

/// What the diagnosis of one Live Activity knows: its row, its delivery record, its match, its device, the record's
/// own state. Gathered by `SupportReportReader`; a test builds it by hand.
public struct ActivityFacts: Sendable {
    public var matchId: String
    /// The row; nil when the device follows the match but has none.
    public var life: ActivityLife?
    /// The activity's delivery record row.
    public var record: DeliveryRecordStore.Row?
    /// For a channel activity: its channel's record row (the match's broadcasts) and the channel's state.
    public var channelRecord: DeliveryRecordStore.Row?
    public var channelState: String?
    public var followedAt: Date?
    public var match: MatchFacts
    public var device: DeviceFacts?
    /// The record's gaps and progress.
    public var recordProgress: DeliveryRecordStore.Progress?

    public init(matchId: String, life: ActivityLife?, record: DeliveryRecordStore.Row?, channelRecord: DeliveryRecordStore.Row? = nil,
                channelState: String? = nil, followedAt: Date?, match: MatchFacts, device: DeviceFacts?,
                recordProgress: DeliveryRecordStore.Progress? = nil) {
        self.matchId = matchId
        self.life = life
        self.record = record
        self.channelRecord = channelRecord
        self.channelState = channelState
        self.followedAt = followedAt
        self.match = match
        self.device = device
        self.recordProgress = recordProgress
    }
}

/// A match as the diagnosis needs it.
public struct MatchFacts: Sendable, Equatable, Codable {
    public var title: String?
    public var status: String?
    public var isLive: Bool
    /// The display state's phase: live, inningsBreak, interrupted, ended, upcoming.
    public var phase: String?
    public var lastEventSeq: Int64?
    public var lastEventAt: Date?

    public init(title: String? = nil, status: String? = nil, isLive: Bool, phase: String? = nil, lastEventSeq: Int64? = nil, lastEventAt: Date? = nil) {
        self.title = title
        self.status = status
        self.isLive = isLive
        self.phase = phase
        self.lastEventSeq = lastEventSeq
        self.lastEventAt = lastEventAt
    }
}

/// The rules that turn `ActivityFacts` into `SupportFinding`s: why a Lock Screen did or did not move, in plain words.
/// Pure (the clock is `now`), so every rule is tested with a scenario built for it.
public struct ActivityDiagnosis: Sendable {
    /// How long after an accepted push-to-start an update token is expected (the app posts it as soon as the activity exists).
    public var tokenWait: Duration = .seconds(300)
    /// How long a PENDING row may wait for its first push-to-start in the record (the orchestrator runs every 30 s).
    public var startWait: Duration = .seconds(120)
    /// The app ends an activity with no update for 30 minutes (the seeds' stale rule).
    public var staleAfter: Duration = .seconds(1800)

    public init() {}

    public func findings(_ facts: ActivityFacts, now: Date) -> [SupportFinding] {
        var found: [SupportFinding] = []
        guard let life = facts.life else {
            if facts.match.isLive, facts.followedAt != nil {
                let why = facts.device.map { $0.pushToStartToken == nil
                    ? "the device never registered a push-to-start token (Live Activities off, or an app build before push-to-start)"
                    : "the orchestrator starts it within a minute of the match going live" } ?? "the device is unknown"
                found.append(.init(.notStarted, .problem, "Follows the live match but this device has no Live Activity for it: \(why)."))
            }
            return found
        }
        let record = facts.record
        let recent = record?.recent ?? []
        // Life: starts.
        if life.status == .pending {
            if let start = record?.lastStart, start.finishedAt >= Self.milliseconds(life.updatedAt) - 1000 {
                if start.result == .accepted, let at = start.at, now.timeIntervalSince(Self.date(at)) > tokenWait.seconds {
                    let minutes = Int(now.timeIntervalSince(Self.date(at)) / 60)
                    found.append(.init(.noUpdateToken, .problem,
                                       "No update token \(minutes) min after the push-to-start was accepted at \(Self.iso(at)): the activity did not start on the device (Live Activities switched off for the app, the start expired, or iOS's start budget refused it).",
                                       at: Self.iso(at)))
                } else if start.result == .refused || start.result == .dead {
                    found.append(.init(.startNotAccepted, .problem,
                                       "The push-to-start was \(start.result == .refused ? "refused by APNs" : "dead-lettered")\(Self.because(start)) at \(Self.iso(start.at ?? start.finishedAt)): no activity was started.",
                                       at: Self.iso(start.at ?? start.finishedAt)))
                }
            } else if now.timeIntervalSince(life.updatedAt) > startWait.seconds {
                found.append(.init(.startNotSent, .warning,
                                   "Waiting for a Live Activity since \(Self.iso(life.updatedAt)) and no push-to-start is in the record: the device may have no push-to-start token, or the start is still queued.",
                                   at: Self.iso(life.updatedAt)))
            }
        }
        // Refused tokens, and the re-start after one.
        if let refusal = recent.first(where: { $0.result == .refused }) ?? record?.lastFailure.flatMap({ $0.result == .refused ? $0 : nil }) {
            var message = "APNs refused the token \(refusal.token)\(Self.because(refusal)) at \(Self.iso(refusal.at ?? refusal.finishedAt))"
            if life.endReason == .tokenInvalid { message += ": ended token_invalid" }
            found.append(.init(.tokenRefused, .problem, message + ".", at: Self.iso(refusal.at ?? refusal.finishedAt)))
            if let start = record?.lastStart, start.finishedAt > refusal.finishedAt, start.result == .accepted {
                found.append(.init(.restarted, .info,
                                   "Re-started at \(Self.iso(start.at ?? start.finishedAt)), \(Self.duration(start.finishedAt - refusal.finishedAt)) after the refusal (start \(life.startAttempts) of this activity).",
                                   at: Self.iso(start.at ?? start.finishedAt)))
            }
        }
        // Order: an accepted update older than one accepted before it.
        let updates = recent.filter { ($0.kind == .update || $0.kind == .keyEvent) && $0.result == .accepted && $0.timestamp != nil }
            .sorted { ($0.at ?? $0.finishedAt) < ($1.at ?? $1.finishedAt) }
        var newest: DeliveryEntry?
        for update in updates {
            if let shown = newest, let timestamp = update.timestamp, let shownTimestamp = shown.timestamp, timestamp < shownTimestamp {
                found.append(.init(.olderThanShown, .warning,
                                   "An update accepted at \(Self.iso(update.at ?? update.finishedAt)) is older (timestamp \(timestamp)) than one already shown (\(shownTimestamp)): ActivityKit drops it.",
                                   at: Self.iso(update.at ?? update.finishedAt)))
            }
            if newest.map({ ($0.timestamp ?? 0) < (update.timestamp ?? 0) }) ?? true { newest = update }
        }
        // Channel delivery.
        if life.delivery == .channel {
            let channel = facts.channelRecord
            let last = [channel?.lastUpdate, channel?.lastKeyEvent].compactMap { $0 }.max { $0.finishedAt < $1.finishedAt }
            let lastText = last.map { ", last broadcast \($0.result.rawValue) at \(Self.iso($0.at ?? $0.finishedAt))" } ?? ""
            let state = facts.channelState ?? "unknown"
            found.append(.init(.onChannel, .info,
                               "On the broadcast channel \(life.channelId.map(TokenMask.mask) ?? "?") (\(state)): the device gets the channel's pushes, not per-token ones\(lastText)."))
            if state != "active", life.status != .ended {
                found.append(.init(.channelNotActive, .problem,
                                   "The activity's broadcast channel is \(state): its broadcasts do not reach the device until the channel is created again."))
            }
        }
        // Staleness while the activity runs.
        if life.status == .active {
            let source = life.delivery == .channel ? facts.channelRecord : record
            let lastAccepted = [source?.lastUpdate, source?.lastKeyEvent].compactMap { $0 }.filter { $0.result == .accepted }
                .compactMap { $0.at }.max()
            let since = lastAccepted.map(Self.date) ?? life.activatedAt ?? life.updatedAt
            let idle = now.timeIntervalSince(since)
            if idle > staleAfter.seconds, facts.match.isLive {
                let minutes = Int(idle / 60)
                if facts.match.phase == "inningsBreak" || facts.match.phase == "interrupted" {
                    found.append(.init(.staleInBreak, .info,
                                       "No push for \(minutes) min: the match is in a break (\(facts.match.status ?? facts.match.phase ?? "")); the card shows stale until play resumes.",
                                       at: Self.iso(since)))
                } else {
                    found.append(.init(.staleWhileLive, .problem,
                                       "No push accepted for \(minutes) min (since \(Self.iso(since))) while the match is live: the app ends a Live Activity after 30 min without an update.",
                                       at: Self.iso(since)))
                }
            }
        }
        // Content and sending.
        if let trimmed = recent.first(where: { $0.trimStep != nil }) {
            found.append(.init(.payloadTrimmed, .info,
                               "The payload of \(trimmed.kind.rawValue) seq \(trimmed.seq) was trimmed (step \(trimmed.trimStep ?? 0)) to fit APNs's 4 KB: some lines of the card were shortened.",
                               at: Self.iso(trimmed.finishedAt)))
        }
        if let record, record.dead > 0 {
            let last = recent.first { $0.result == .dead } ?? record.lastFailure.flatMap { $0.result == .dead ? $0 : nil }
            found.append(.init(.deadLettered, .problem,
                               "\(record.dead) push\(record.dead == 1 ? "" : "es") dead-lettered\(last.map { ", the last \($0.kind.rawValue)\(Self.because($0)) at \(Self.iso($0.finishedAt))" } ?? ""): `sightscreen redrive-dead` sends those not yet expired.",
                               at: last.map { Self.iso($0.finishedAt) }))
        }
        if let record, record.superseded > 0 {
            found.append(.init(.superseded, .info,
                               "\(record.superseded) update\(record.superseded == 1 ? " was" : "s were") not sent because a newer state of the match went first (latest wins)."))
        }
        if let record, record.retried > 0 {
            found.append(.init(.retried, .info, "APNs asked for \(record.retried) retr\(record.retried == 1 ? "y" : "ies") (429, 5xx or no answer) before it answered."))
        }
        let jobs = Dictionary(grouping: recent, by: \.job).filter { $0.value.count > 1 }
        if let (job, sends) = jobs.min(by: { $0.key < $1.key }) {
            found.append(.init(.resent, .info,
                               "The push \(job) was sent \(sends.count) times with the same apns-id (a replay after a restart): the device shows it once."))
        }
        // The end.
        if life.status == .ended, let reason = life.endReason {
            found.append(.init(.ended, .info, "Ended \(Self.endReasonText(reason)) at \(Self.iso(life.updatedAt)).", at: Self.iso(life.updatedAt)))
            let userEnded = reason == .userDismissed
            if !userEnded, reason != .tokenInvalid, life.delivery == .token {
                if let end = record?.lastEnd, end.result == .accepted {
                    // Delivered: nothing to add.
                } else if let end = record?.lastEnd {
                    found.append(.init(.endNotDelivered, .problem,
                                       "Its end push was \(end.result.rawValue)\(Self.because(end)): the activity stays on the Lock Screen until it is stale.",
                                       at: Self.iso(end.finishedAt)))
                } else if now.timeIntervalSince(life.updatedAt) > 60 {
                    found.append(.init(.endNotDelivered, .warning,
                                       "No end push is in the record: the activity stays on the Lock Screen until it is stale (or the record is behind)."))
                }
            }
        }
        // The record itself.
        if let progress = facts.recordProgress {
            let first = record.map { $0.firstAt } ?? life.createdAt
            for gap in progress.gaps where gap.detectedAt >= first {
                found.append(.init(.recordGap, .warning,
                                   "The delivery record has a gap (outcomes \(gap.from)–\(gap.to) of partition \(gap.partition): \(gap.reason)) found at \(Self.iso(gap.detectedAt)): pushes in it are not shown here.",
                                   at: Self.iso(gap.detectedAt)))
            }
        }
        return found.sorted { $0.severity > $1.severity }
    }

    static func endReasonText(_ reason: LiveActivityEndReason) -> String {
        switch reason {
        case .matchEnd: "by the match's end (match_end)"
        case .userUnfollow: "because the user unfollowed the match (user_unfollow)"
        case .userDismissed: "because the user dismissed it on the device (user_dismissed)"
        case .tokenInvalid: "because APNs refused its token (token_invalid)"
        case .dayEnd: "at close of play (day_end); the next day's starts when play resumes"
        }
    }

    static func because(_ entry: DeliveryEntry) -> String {
        switch (entry.status, entry.reason) {
        case let (status?, reason?): " (\(status) \(reason))"
        case let (status?, nil): " (\(status))"
        case let (nil, reason?): " (\(reason))"
        case (nil, nil): ""
        }
    }

    static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
    static func date(_ milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
    public static func iso(_ milliseconds: Int64) -> String { iso(date(milliseconds)) }
    public static func iso(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: false, timeZone: TimeZone(identifier: "UTC") ?? .current))
    }

    static func duration(_ milliseconds: Int64) -> String {
        let seconds = max(0, milliseconds / 1000)
        return seconds < 120 ? "\(seconds) s" : "\(seconds / 60) min"
    }
}
