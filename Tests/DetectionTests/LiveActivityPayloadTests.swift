import SharedTestSupport
import Contracts
import CricsheetReplay
import Foundation
import Testing
@testable import Detection

@Suite("Live Activity payload")
struct LiveActivityPayloadTests {
    /// The longest names in the data set: teams, players, venues, rounds.
    struct Longest {
        var teams: [String] = []
        var players: [String] = []
        var venue = ""
        var round = ""

        init() throws {
            var teams: Set<String> = [], players: Set<String> = []
            for id in DataDirectory.matchIds {
                let match = try DataDirectory.match(id)
                teams.formUnion(match.info.teams)
                players.formUnion(match.info.players.values.flatMap { $0 })
                if let venue = match.info.venue, venue.count > self.venue.count { self.venue = venue }
                let round = SportMonksFixtureBuilder(match: match).fixture(at: .notStarted).round ?? ""
                if round.count > self.round.count { self.round = round }
            }
            self.teams = teams.sorted { $0.count > $1.count }
            self.players = players.sorted { $0.count > $1.count }
        }
    }

    /// The largest realistic state: longest names everywhere, Test-style scores, every optional field filled.
    static func worstCase(_ longest: Longest) -> (UnifiedDisplayState, Alert) {
        let (a, b) = (longest.teams[0], longest.teams[1])
        let (p1, p2, p3, p4) = (longest.players[0], longest.players[1], longest.players[2], longest.players[3])
        let surname = { (name: String) in String(name.split(separator: " ").last ?? "") }
        let dismissal = "\(p1) c sub (\(surname(p3))) b \(surname(p4)) 145 (132)"
        let alert = Alert(title: "Hat-trick! \(p4)", body: "\(p4) 10-144 (52.4) · \(dismissal)")
        let state = UnifiedDisplayState(
            matchId: "1442989", matchDisplayState: .live, title: "\(a) vs \(b)",
            subtitle: "\(longest.round) · \(longest.venue)",
            statusText: "\(a) won the toss and chose to bowl",
            compactLeading: .init(teamAbbr: "RCBW", score: "189/7d"),
            compactTrailing: .init(overs: "152.4", runRate: "12.34"),
            minimal: .init(text: "189/7d"),
            expanded: .init(
                batting: .init(abbr: "RCBW", name: "\(a) · Super Over 2", score: "445 & 189/7d", overs: "152.4"),
                bowling: .init(abbr: "KKRW", name: "\(b) · Super Over 2", score: "460 & 174/9d", overs: "148.5"),
                batters: [.init(name: p1, score: "145 (132)", onStrike: true), .init(name: p2, score: "112 (245)", onStrike: false)],
                bowler: .init(name: p4, figures: "10-144 (52.4)"),
                lastBalls: ["5nb", "4lb", "5wd", "W", "6", "5wd"],
                target: "Target 302 (11.2 ov, DLS)", equation: "Need 302 off 240", runRate: "RR 12.34",
                requiredRate: "RRR 36.00"),
            lockScreen: .init(headline: "RCBW 445 & 189/7d (152.4)", detail: "\(p1) 145 (132) · \(p2) 112 (245)",
                              footer: "\(alert.title) · \(alert.body)"),
            resultLine: "Match tied (\(a) won the Super Over)", updatedAt: 1_800_000_000)
        return (state, alert)
    }

    @Test("the worst-case state wrapped with an alert stays within 4,096 bytes (update, end and start)")
    func worstCaseSize() throws {
        let longest = try Longest()
        let (state, alert) = Self.worstCase(longest)
        let event = MatchBusEvent(eventId: "1442989:999", matchId: "1442989", seq: 999, emittedAt: 1_800_000_000_000,
                                  displayState: state, keyEvent: KeyEvent(kind: .hatTrick, priority: 10, alert: alert),
                                  phase: .live)
        let update = try LiveActivityPayload.forEvent(event).encoded()
        var ended = event
        ended.phase = .ended
        let end = try LiveActivityPayload.forEvent(ended).encoded()
        let start = try LiveActivityPayload.start(
            state: state, timestamp: 1_800_000_000, attributesType: "MatchActivityAttributes",
            attributes: ["matchId": "1442989", "title": state.title, "subtitle": state.subtitle],
            alert: .init(title: state.title, body: state.statusText)).encoded()
        for bytes in [update, end, start] { #expect(bytes.count <= LiveActivityPayload.maximumBytes) }
        // The worst case really is large: guard against a test that checks a small state.
        #expect(update.count > 1_500)
        #expect(longest.players[0].count >= 15 && longest.teams[0].count >= 20)
    }

    @Test("an oversized payload is refused with its size")
    func tooLarge() throws {
        let (state, _) = Self.worstCase(try Longest())
        var huge = state
        huge.statusText = String(repeating: "x", count: 4_000)
        let payload = LiveActivityPayload(event: .update, timestamp: 1, contentState: huge)
        #expect(throws: LiveActivityPayloadError.self) { try payload.encoded() }
    }

    @Test("shape: aps keys per event kind, camelCase content state, deterministic bytes")
    func shape() throws {
        let (state, alert) = Self.worstCase(try Longest())
        let alerting = MatchBusEvent(eventId: "9:1", matchId: "9", seq: 1, emittedAt: 1_800_000_123_456, displayState: state,
                                     keyEvent: KeyEvent(kind: .wicket, priority: 10, alert: alert), phase: .live)
        let bytes = try LiveActivityPayload.forEvent(alerting).encoded()
        #expect(bytes == (try LiveActivityPayload.forEvent(alerting).encoded()))
        let json = try JSONSerialization.jsonObject(with: Data(bytes)) as! [String: Any]
        let aps = json["aps"] as! [String: Any]
        #expect(Set(aps.keys) == ["timestamp", "event", "content-state", "stale-date", "relevance-score", "alert"])
        #expect(aps["timestamp"] as? Int == 1_800_000_123 && aps["event"] as? String == "update")
        #expect(aps["stale-date"] as? Int == 1_800_000_123 + 1800 && aps["relevance-score"] as? Int == 10)
        let content = aps["content-state"] as! [String: Any]
        #expect(content["matchDisplayState"] as? String == "live")
        #expect((content["compactLeading"] as? [String: Any])?["teamAbbr"] as? String == "RCBW")
        #expect((aps["alert"] as? [String: Any])?["title"] as? String == alert.title)

        var silent = alerting
        silent.keyEvent = KeyEvent(kind: .four, priority: 5, alert: nil)
        silent.phase = .ended
        let end = try JSONSerialization.jsonObject(with: Data(try LiveActivityPayload.forEvent(silent).encoded())) as! [String: Any]
        let endAps = end["aps"] as! [String: Any]
        #expect(Set(endAps.keys) == ["timestamp", "event", "content-state", "dismissal-date", "relevance-score"])
        #expect(endAps["event"] as? String == "end" && endAps["dismissal-date"] as? Int == 1_800_000_123 + 3600)
    }
}
