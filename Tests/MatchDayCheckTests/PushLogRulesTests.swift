import APNsMock
import MatchDayCheck
import Testing

/// Each rule of `PushLogRules` fires on a log that breaks it, and stays quiet on one that does not.
@Suite struct PushLogRulesTests {
    static let token = String(repeating: "ab", count: 32) + "0123abcd"
    static let other = String(repeating: "cd", count: 32) + "9999eeee"

    /// Pushes and refusals numbered in the order given.
    final class Log {
        var deliveries: [MockAPNsDelivery] = []
        var refusals: [MockAPNsRefusal] = []
        var sequence = 0

        func accept(_ token: String = PushLogRulesTests.token, timestamp: Int64?, at: Int64, id: String? = nil, payload: String? = nil,
                    priority: Int = 10, channel: String? = nil) {
            sequence += 1
            deliveries.append(MockAPNsDelivery(
                apnsID: id ?? "id-\(sequence)", token: token, topic: "t", pushType: "liveactivity", priority: priority, expiration: nil,
                collapseID: nil, payload: payload ?? #"{"aps":{"timestamp":\#(timestamp ?? 0)}}"#, receivedAt: at, connectionID: 1,
                sequence: sequence, channelId: channel, apsTimestamp: timestamp))
        }

        func refuse(_ token: String = PushLogRulesTests.token, reason: String, status: Int, timestamp: Int64?, at: Int64) {
            sequence += 1
            refusals.append(MockAPNsRefusal(sequence: sequence, token: token, channelId: nil, apnsID: "r-\(sequence)", status: status,
                                            reason: reason, priority: 10, apsTimestamp: timestamp, receivedAt: at))
        }

        func check(_ rules: PushLogRules = PushLogRules()) -> PushLogRules.Report {
            rules.check(deliveries: deliveries.shuffled(), refusals: refusals.shuffled())
        }
    }

    @Test("a healthy log: newer states in order, a retried 503, a refusal with only queued pushes after it")
    func healthy() {
        let log = Log()
        log.accept(timestamp: 100, at: 100_200)
        log.refuse(reason: "ServiceUnavailable", status: 503, timestamp: 101, at: 101_100)
        log.accept(timestamp: 101, at: 101_300)
        log.accept(Self.other, timestamp: 101, at: 101_300)
        log.refuse(Self.other, reason: "Unregistered", status: 410, timestamp: 102, at: 102_100)
        log.refuse(Self.other, reason: "Unregistered", status: 410, timestamp: 108, at: 110_000)
        let report = log.check()
        #expect(report.violations.isEmpty, "\(report.violations)")
        #expect(report.tokens == 2 && report.accepted == 3 && report.refused == 3)
    }

    @Test("an older state after a newer one")
    func olderAfterNewer() {
        let log = Log()
        log.accept(timestamp: 200, at: 1)
        log.accept(timestamp: 150, at: 2)
        log.accept(timestamp: 210, at: 3)
        let violations = log.check().violations
        #expect(violations.map(\.rule) == [.olderAfterNewer] && violations[0].sequences == [1, 2])
        #expect(violations[0].token == "…0123abcd" && !violations[0].description.contains(Self.token))
    }

    @Test("a push made after APNs refused the token, past the grace; a transient refusal is not final")
    func pushAfterRefusal() {
        let log = Log()
        log.refuse(reason: "TooManyRequests", status: 429, timestamp: 100, at: 100_000)
        log.accept(timestamp: 200, at: 200_000)
        log.refuse(reason: "Unregistered", status: 410, timestamp: 201, at: 201_000)
        log.refuse(reason: "Unregistered", status: 410, timestamp: 205, at: 205_500)
        log.refuse(reason: "Unregistered", status: 410, timestamp: 240, at: 240_100)
        let violations = log.check().violations
        #expect(violations.map(\.rule) == [.pushAfterRefusal] && violations[0].sequences == [3, 5], "\(violations)")
        #expect(log.check(PushLogRules(graceMilliseconds: 60_000)).violations.isEmpty)
    }

    @Test("a push after the activity's end push; the end replayed is the duplicate rule's; a channel's end is its own stream")
    func pushAfterEnd() {
        let end = #"{"aps":{"timestamp":400,"event":"end"}}"#
        let log = Log()
        log.accept(timestamp: 399, at: 399_000)
        log.accept(timestamp: 400, at: 400_000, id: "end", payload: end)
        log.accept(timestamp: 400, at: 400_200, id: "end", payload: end)
        log.accept(timestamp: 401, at: 401_000)
        log.accept(timestamp: 402, at: 401_500, payload: #"{"aps":{"timestamp":402,"event":"update"}}"#, channel: "ch-1")
        log.accept(timestamp: 403, at: 402_000, payload: #"{"aps":{"timestamp":403,"event":"end"}}"#, channel: "ch-1")
        let report = log.check(PushLogRules(excused: [399_900...400_100]))
        #expect(report.violations.map(\.rule) == [.pushAfterEnd], "\(report.violations)")
        #expect(report.violations.first?.sequences == [2, 4])
        #expect(report.excusedDuplicates == 1, "the end's replay inside the crash window")
    }

    @Test("the same payload twice: a violation unless it is the same request replayed inside a crash window")
    func duplicates() {
        let log = Log()
        log.accept(timestamp: 300, at: 300_000, id: "same", payload: "wicket")
        log.accept(timestamp: 300, at: 300_400, id: "same", payload: "wicket")
        log.accept(timestamp: 301, at: 301_000, id: "one", payload: "four")
        log.accept(timestamp: 301, at: 301_500, id: "two", payload: "four")
        let plain = log.check()
        #expect(plain.violations.map(\.rule) == [.duplicate, .duplicate] && plain.excusedDuplicates == 0)
        let crash = log.check(PushLogRules(excused: [299_500...300_100, 300_900...301_100]))
        #expect(crash.violations.map(\.sequences) == [[3, 4]], "a new apns-id is a new fan-out, never excused")
        #expect(crash.excusedDuplicates == 1)
    }
}
