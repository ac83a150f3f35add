import Contracts
import DeliveryRecord
import Foundation
import LiveActivities
import Operations
import Testing

/// Every finding of `ActivityDiagnosis`, each from a scenario that produces it — and a healthy activity that produces no
/// warning or problem.
@Suite struct ActivityDiagnosisTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static func ms(_ secondsBeforeNow: Double) -> Int64 { Int64((now.timeIntervalSince1970 - secondsBeforeNow) * 1000) }
    static func ago(_ seconds: Double) -> Date { now.addingTimeInterval(-seconds) }

    static func life(_ status: LiveActivityStatus, reason: LiveActivityEndReason? = nil, delivery: LiveActivityDeliveryMode = .token,
                     updated: Double = 600, activated: Double? = 500, attempts: Int = 1) -> ActivityLife {
        ActivityLife(matchId: "m1", userId: "u1", deviceId: "d1", status: status, endReason: reason, delivery: delivery,
                     channelId: delivery == .channel ? "Y2hhbm5lbC0x" : nil, updateToken: status == .active && delivery == .token ? "ab" : nil,
                     apnsEnvironment: "production", startAttempts: attempts, createdAt: ago(3600), updatedAt: ago(updated),
                     activatedAt: activated.map(ago))
    }

    static func entry(_ kind: DeliveryKind, _ result: PushResult = .accepted, seq: Int64 = 1, at: Double, timestamp: Int64? = nil,
                      status: Int? = 200, reason: String? = nil, job: String? = nil, trimStep: Int? = nil) -> DeliveryEntry {
        DeliveryEntry(kind: kind, job: job ?? "\(kind.rawValue)-\(seq)", seq: seq, result: result, status: status, reason: reason, apnsId: nil,
                      token: "…abcdabcd", timestamp: timestamp ?? ms(at) / 1000, at: result == .superseded ? nil : ms(at), finishedAt: ms(at),
                      freshnessMs: 800, tries: result == .superseded ? 0 : 1, priority: kind == .keyEvent || kind == .end ? 10 : 5,
                      createdAt: ms(at) - 500, trimStep: trimStep)
    }

    static func record(_ entries: [DeliveryEntry], dead: Int64 = 0, superseded: Int64 = 0, retried: Int64 = 0) -> DeliveryRecordStore.Row {
        let sorted = entries.sorted { $0.finishedAt > $1.finishedAt }
        func last(_ kind: DeliveryKind) -> DeliveryEntry? { sorted.first { $0.kind == kind } }
        return DeliveryRecordStore.Row(
            matchId: "m1", userId: "u1", deviceId: "d1", channelId: nil, sent: Int64(entries.count), accepted: Int64(entries.filter { $0.result == .accepted }.count),
            refused: Int64(entries.filter { $0.result == .refused }.count), retried: retried, superseded: superseded, dead: dead,
            lastStart: last(.start), lastUpdate: last(.update), lastKeyEvent: last(.keyEvent), lastEnd: last(.end), recent: sorted,
            firstAt: ago(3600), lastAt: ago(0))
    }

    static func facts(_ life: ActivityLife?, _ record: DeliveryRecordStore.Row?, match: MatchFacts = MatchFacts(isLive: true, phase: "live"),
                      device: DeviceFacts? = nil, channelState: String? = nil, channelRecord: DeliveryRecordStore.Row? = nil,
                      progress: DeliveryRecordStore.Progress? = nil) -> ActivityFacts {
        ActivityFacts(matchId: "m1", life: life, record: record, channelRecord: channelRecord, channelState: channelState, followedAt: ago(4000),
                      match: match, device: device, recordProgress: progress)
    }

    static func codes(_ facts: ActivityFacts) -> [SupportFinding.Code] { ActivityDiagnosis().findings(facts, now: now).map(\.code) }

    @Test("a healthy live activity: started, token registered, updates accepted a minute ago: nothing to warn about")
    func healthy() {
        let findings = ActivityDiagnosis().findings(Self.facts(Self.life(.active), Self.record([
            Self.entry(.start, at: 700), Self.entry(.update, seq: 5, at: 60), Self.entry(.keyEvent, seq: 6, at: 30)])), now: Self.now)
        #expect(findings.allSatisfy { $0.severity == .info }, "\(findings)")
    }

    @Test("no update token 5 min after an accepted push-to-start")
    func noUpdateToken() {
        let facts = Self.facts(Self.life(.pending, updated: 700, activated: nil), Self.record([Self.entry(.start, at: 690)]))
        let finding = ActivityDiagnosis().findings(facts, now: Self.now).first
        #expect(finding?.code == .noUpdateToken && finding?.severity == .problem)
        #expect(finding?.message.hasPrefix("No update token 11 min after the push-to-start was accepted at ") == true, "\(String(describing: finding))")
    }

    @Test("a push-to-start APNs refused; a PENDING row with no start in the record")
    func startNotAcceptedOrNotSent() {
        let refused = Self.facts(Self.life(.pending, updated: 100, activated: nil),
                                 Self.record([Self.entry(.start, .refused, at: 90, status: 400, reason: "BadDeviceToken")]))
        #expect(Self.codes(refused).contains(.startNotAccepted))
        #expect(Self.codes(Self.facts(Self.life(.pending, updated: 300, activated: nil), nil)) == [.startNotSent])
    }

    @Test("APNs refused the token (410): ended token_invalid, then re-started")
    func tokenRefusedAndRestarted() {
        let record = Self.record([Self.entry(.update, .refused, at: 400, status: 410, reason: "Unregistered"), Self.entry(.start, seq: 0, at: 370)])
        let findings = ActivityDiagnosis().findings(Self.facts(Self.life(.pending, updated: 370, activated: nil, attempts: 2), record), now: Self.now)
        let refused = findings.first { $0.code == .tokenRefused }
        #expect(refused?.message.contains("(410 Unregistered)") == true, "\(findings)")
        #expect(findings.first { $0.code == .restarted }?.message.contains("30 s after the refusal (start 2 of this activity)") == true, "\(findings)")
        let ended = ActivityDiagnosis().findings(Self.facts(Self.life(.ended, reason: .tokenInvalid, updated: 390),
                                                             Self.record([Self.entry(.update, .refused, at: 400, status: 410, reason: "Unregistered")])), now: Self.now)
        #expect(ended.first { $0.code == .tokenRefused }?.message.hasSuffix(": ended token_invalid.") == true, "\(ended)")
    }

    @Test("a refusal older than the last 20 pushes is still found (the row's last failure)")
    func refusalBeyondTheHistory() {
        var record = Self.record((0..<20).map { Self.entry(.update, seq: Int64(100 + $0), at: Double(100 - $0)) })
        record.lastFailure = Self.entry(.update, .refused, seq: 50, at: 900, status: 410, reason: "Unregistered")
        record.refused = 1
        #expect(Self.codes(Self.facts(Self.life(.active, activated: 800, attempts: 2), record)).contains(.tokenRefused))
    }

    @Test("an update accepted after a newer one: ActivityKit drops it")
    func olderThanShown() {
        let record = Self.record([Self.entry(.update, seq: 9, at: 120, timestamp: 5000), Self.entry(.update, seq: 8, at: 60, timestamp: 4000)])
        #expect(Self.codes(Self.facts(Self.life(.active), record)).contains(.olderThanShown))
    }

    @Test("on a broadcast channel: the channel's pushes, not per-token ones; an invalid channel is a problem")
    func onChannel() {
        let channel = Self.record([Self.entry(.update, seq: 3, at: 20)])
        let active = ActivityDiagnosis().findings(Self.facts(Self.life(.active, delivery: .channel), nil, channelState: "active", channelRecord: channel),
                                                  now: Self.now)
        #expect(active.map(\.code) == [.onChannel] && active[0].message.contains("On the broadcast channel …bm5lbC0x (active)"), "\(active)")
        let invalid = Self.codes(Self.facts(Self.life(.active, delivery: .channel), nil, channelState: "invalid", channelRecord: channel))
        #expect(invalid.contains(.channelNotActive))
    }

    @Test("no push for 31 min: in a break it is the card going stale; while live it is a problem")
    func stale() {
        let record = Self.record([Self.entry(.update, seq: 3, at: 31 * 60)])
        let breakFindings = ActivityDiagnosis().findings(Self.facts(Self.life(.active, activated: 3000), record,
                                                                    match: MatchFacts(status: "Innings Break", isLive: true, phase: "inningsBreak")), now: Self.now)
        #expect(breakFindings.first { $0.code == .staleInBreak }?.message.hasPrefix("No push for 31 min: the match is in a break (Innings Break)") == true,
                "\(breakFindings)")
        #expect(Self.codes(Self.facts(Self.life(.active, activated: 3000), record)).contains(.staleWhileLive))
    }

    @Test("payload trimmed, pushes dead-lettered, updates superseded, retries, a push sent twice")
    func sendingFindings() {
        let record = Self.record([
            Self.entry(.update, seq: 4, at: 50, trimStep: 1), Self.entry(.keyEvent, .dead, seq: 5, at: 40, status: 503, reason: "ServiceUnavailable"),
            Self.entry(.update, .superseded, seq: 3, at: 45, status: nil), Self.entry(.update, seq: 2, at: 60, job: "e2:0:0"),
            Self.entry(.update, seq: 2, at: 55, job: "e2:0:0"),
        ], dead: 1, superseded: 1, retried: 4)
        let codes = Self.codes(Self.facts(Self.life(.active), record))
        for code in [SupportFinding.Code.payloadTrimmed, .deadLettered, .superseded, .retried, .resent] { #expect(codes.contains(code), "\(code): \(codes)") }
    }

    @Test("ended by the match's end; an end that was not accepted leaves the activity up")
    func ended() {
        let delivered = Self.codes(Self.facts(Self.life(.ended, reason: .matchEnd, updated: 100), Self.record([Self.entry(.end, at: 110)])))
        #expect(delivered == [.ended])
        let dead = Self.codes(Self.facts(Self.life(.ended, reason: .matchEnd, updated: 100), Self.record([Self.entry(.end, .dead, at: 110, status: 500)]),
                                         match: MatchFacts(isLive: false)))
        #expect(dead.contains(.endNotDelivered))
    }

    @Test("follows a live match without a Live Activity on this device: no push-to-start token")
    func notStarted() {
        let device = DeviceFacts(userId: "u1", deviceId: "d1", pushToken: "aa", pushToStartToken: nil, apnsEnvironment: "production", appVersion: "1.0",
                                 osVersion: "17.0", channelCapable: false, updatedAt: Self.ago(9000))
        let findings = ActivityDiagnosis().findings(Self.facts(nil, nil, device: device), now: Self.now)
        #expect(findings.map(\.code) == [.notStarted] && findings[0].message.contains("never registered a push-to-start token"))
    }

    @Test("a gap in the record found during the activity is reported")
    func recordGap() {
        let progress = DeliveryRecordStore.Progress(lastFoldAt: Self.ago(5), gaps: [
            .init(partition: 3, from: 100, to: 140, reason: "not on the topic when the recorder read it", detectedAt: Self.ago(600))])
        let codes = Self.codes(Self.facts(Self.life(.active), Self.record([Self.entry(.update, at: 30)]), progress: progress))
        #expect(codes.contains(.recordGap))
    }
}
