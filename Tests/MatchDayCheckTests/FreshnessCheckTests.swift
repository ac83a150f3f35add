import APNsMock
import CricsheetReplay
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
@testable import MatchDayCheck
import SharedTestSupport
import Testing

/// Freshness from the feed's timeline and what APNs accepted (`FreshnessCheck`), the payload reading it rests on, the
/// chart, and the record the checker reads.
@Suite struct FreshnessCheckTests {
    static let cricsheetId = 1415755
    static let fixture = "9001415755"
    static let t0: Int64 = 1_800_000_000_000

    /// The payload of an update showing the batting side's score after `deliveries` balls of `match`.
    static func payload(_ match: CricsheetMatch, deliveries: Int, fixture: String = fixture) -> String {
        let innings = MatchReplay(match: match, deliveries: deliveries).current!
        let overs = innings.legalBalls % 6 == 0 ? "\(innings.legalBalls / 6)" : "\(innings.legalBalls / 6).\(innings.legalBalls % 6)"
        let score = "\(innings.runs)/\(innings.wickets)"
        return #"{"aps":{"timestamp":1,"event":"update","content-state":{"matchId":"\#(fixture)","expanded":{"batting":{"score":"\#(score)","overs":"\#(overs)"}}}}}"#
    }

    /// The feed served ball k at t0 + 1 s · k.
    static func served(upTo balls: Int) -> [ServedPosition] {
        (0...balls).map { ServedPosition(fixture: Int(fixture)!, deliveries: $0, phase: $0 == 0 ? .notStarted : .inningsInProgress,
                                         servedAt: t0 + Int64($0) * 1_000) }
    }

    final class Log {
        var deliveries: [MockAPNsDelivery] = []
        func accept(_ token: String, _ payload: String, at: Int64) {
            deliveries.append(MockAPNsDelivery(
                apnsID: "id-\(deliveries.count)", token: token, topic: "t", pushType: "liveactivity", priority: 5, expiration: nil,
                collapseID: nil, payload: payload, receivedAt: at, connectionID: 1, sequence: deliveries.count + 1, channelId: nil,
                apsTimestamp: 1))
        }
    }

    @Test("reads the score and progress a push shows, as the app formats them")
    func readsTheShownScore() {
        #expect(ShownScores.runs("245 & 120/3") == 120 && ShownScores.runs("89/7d") == 89 && ShownScores.runs("82") == 82)
        #expect(ShownScores.runs("") == nil && ShownScores.runs("abc/2") == nil)
        #expect(ShownScores.legalBalls("12.3") == 75 && ShownScores.legalBalls("20") == 120 && ShownScores.legalBalls("0") == 0)
        #expect(ShownScores.legalBalls("90 balls") == 90 && ShownScores.legalBalls("1 ball") == 1)
        #expect(ShownScores.legalBalls("12.6") == nil && ShownScores.legalBalls("") == nil && ShownScores.legalBalls("3 overs") == nil)
        #expect(ShownScores.parse(#"{"aps":{"event":"update"}}"#) == nil && ShownScores.parse("not json") == nil)
    }

    @Test("a push that moves a token to a later ball is a sample from the ball's serving to APNs accepting it; inside a fault when the two overlap it")
    func measuresFromServedToAccepted() throws {
        let match = try DataDirectory.match(Self.cricsheetId)
        let log = Log()
        log.accept("A", Self.payload(match, deliveries: 3), at: Self.t0 + 3_500)   // baseline: no sample
        log.accept("A", Self.payload(match, deliveries: 5), at: Self.t0 + 5_400)   // 400 ms
        log.accept("B", Self.payload(match, deliveries: 4), at: Self.t0 + 4_200)   // baseline
        log.accept("B", Self.payload(match, deliveries: 6), at: Self.t0 + 6_300)   // 300 ms
        log.accept("A", Self.payload(match, deliveries: 9), at: Self.t0 + 10_200)  // 1,200 ms, across the fault
        log.accept("A", Self.payload(match, deliveries: 9), at: Self.t0 + 12_000)  // not later: no sample
        log.accept("A", Self.payload(match, deliveries: 40), at: Self.t0 + 13_000) // served only at 40 s: unmapped
        log.accept("B", #"{"aps":{"event":"update","content-state":{"matchId":"\#(Self.fixture)","expanded":{"batting":{"score":"999/0","overs":"1"}}}}}"#,
                   at: Self.t0 + 13_000)                                            // no such ball: unmapped
        let fault = MatchDayFault(kind: "kill apns-sender", start: Self.t0 + 9_500, end: Self.t0 + 9_600)
        let report = FreshnessCheck(recoveryMilliseconds: 0, bucketMilliseconds: 5_000).measure(
            deliveries: log.deliveries.reversed(), served: Self.served(upTo: 30), matches: [Self.fixture: match], faults: [fault])
        let figures = try #require(report.matches.first)
        #expect(figures.outside == LatencyStats([400, 300]) && figures.outside.p50 == 300 && figures.outside.p99 == 400)
        #expect(figures.inside == LatencyStats([1_200]))
        #expect(figures.unmapped == 2 && figures.servedDeliveries == 30)
        #expect(figures.buckets.map(\.start) == [Self.t0 + 5_000], "samples bucketed by when their ball was served")
        #expect(report.startedAt == Self.t0)
    }

    @Test("a replay whose first copy APNs accepted in the second before a fault is excused (not yet committed when the fault hit); one from earlier is not")
    func replayJustBeforeAFault() throws {
        let match = try DataDirectory.match(Self.cricsheetId)
        let log = Log()
        let update = Self.payload(match, deliveries: 3)
        let earlier = Self.payload(match, deliveries: 2)
        log.accept("A", earlier, at: Self.t0 + 8_000)
        log.accept("A", update, at: Self.t0 + 9_400)
        log.deliveries.append(log.deliveries[1])  // the same request again, after the pause
        log.deliveries[2].sequence = 3
        log.deliveries[2].receivedAt = Self.t0 + 40_000
        log.deliveries.append(log.deliveries[0])  // and one first accepted 2 s before it
        log.deliveries[3].sequence = 4
        log.deliveries[3].receivedAt = Self.t0 + 40_100
        let record = MatchDayRecord(
            matches: [.init(fixture: Self.fixture, cricsheetFile: DataDirectory.url(Self.cricsheetId).path)], deliveries: log.deliveries,
            refusals: [], served: Self.served(upTo: 10), faults: [MatchDayFault(kind: "broker paused 20 s", start: Self.t0 + 10_000, end: Self.t0 + 30_000)])
        let report = try MatchDayReport.check(record)
        #expect(report.pushLog.excusedDuplicates == 1)
        #expect(report.violations.map(\.rule) == [.duplicate] && report.violations[0].sequences == [1, 4], "\(report.violations)")
    }

    @Test("nearest-rank percentiles")
    func percentiles() {
        let stats = LatencyStats((1...100).map(Int64.init).reversed())
        #expect(stats.count == 100 && stats.p50 == 50 && stats.p99 == 99 && stats.max == 100)
        #expect(LatencyStats([]) == LatencyStats([]) && LatencyStats([]).p99 == 0)
    }

    @Test("the chart: one panel per match, a band per fault in each, p50 and p99 lines, valid XML")
    func chart() throws {
        let bucket = FreshnessCheck.Bucket(start: Self.t0, stats: .init([300, 2_500]))
        let match = FreshnessCheck.Match(fixture: "1", outside: .init([300]), inside: .init([2_500]), unmapped: 0, servedDeliveries: 10,
                                         buckets: [bucket, FreshnessCheck.Bucket(start: Self.t0 + 5_000, stats: .init([700]))])
        var other = match
        other.fixture = "2<&>"
        let report = FreshnessCheck.Report(
            matches: [match, other],
            faults: [MatchDayFault(kind: "pause broker 20 s", start: Self.t0 + 1_000, end: Self.t0 + 21_000),
                     MatchDayFault(kind: "kill detector", start: Self.t0 + 30_000, end: Self.t0 + 30_000)],
            recoveryMilliseconds: 10_000, bucketMilliseconds: 5_000, startedAt: Self.t0)
        let svg = FreshnessChart.svg(report)
        let document = try XMLDocument(xmlString: svg)
        #expect(try document.nodes(forXPath: "//*[local-name()='g']").count == 2)
        #expect(try document.nodes(forXPath: "//*[local-name()='rect'][@class='fault']").count == 4)
        #expect(try document.nodes(forXPath: "//*[local-name()='polyline']").count == 4)
        #expect(svg.contains("2&lt;&amp;&gt;"))
    }

    @Test("a record written to a folder reads back the same; a missing file is named")
    func recordRoundTrip() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("match-day-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let match = try DataDirectory.match(Self.cricsheetId)
        let log = Log()
        log.accept("A", Self.payload(match, deliveries: 3), at: Self.t0 + 3_500)
        log.accept("A", Self.payload(match, deliveries: 5), at: Self.t0 + 5_400)
        let record = MatchDayRecord(
            matches: [.init(fixture: Self.fixture, cricsheetFile: DataDirectory.url(Self.cricsheetId).path)], deliveries: log.deliveries,
            refusals: [], served: Self.served(upTo: 10), faults: [MatchDayFault(kind: "restart postgres", start: Self.t0 + 20_000, end: Self.t0 + 22_000)])
        try record.write(to: directory)
        let read = try MatchDayRecord.read(from: directory)
        #expect(read.deliveries == record.deliveries && read.served == record.served && read.faults == record.faults && read.matches == record.matches)
        let report = try MatchDayReport.check(read)
        #expect(report.violations.isEmpty && report.freshness.matches.first?.outside.count == 1)
        try report.write(to: directory)
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("freshness.svg").path))
        #expect(report.text.contains("match \(Self.fixture): outside faults p50 0.40 s"), "\(report.text)")
        try FileManager.default.removeItem(at: directory.appendingPathComponent("served.json"))
        #expect { try MatchDayRecord.read(from: directory) } throws: { "\($0)".contains("served.json is missing") }
    }
}
