import SharedTestSupport
import Contracts
import CricsheetReplay
import Cricket
import Foundation
import Testing
@testable import Detection

/// Every wicket kind Cricsheet records, counted and named as the Laws say, and deliveries with several dismissals
/// (issue 32): one wicket event per dismissal, one alert naming them all.
@Suite("Dismissal kinds")
struct DismissalKindsTests {
    typealias F = FixtureFactory

    /// Cricsheet kind → what the scorecard prints (bowler "Bumrah", fielder "Kohli").
    static let laws: [(kind: String, how: String)] = [
        ("caught", "c Kohli b Bumrah"), ("caught and bowled", "c & b Bumrah"), ("bowled", "b Bumrah"),
        ("lbw", "lbw b Bumrah"), ("stumped", "st Kohli b Bumrah"), ("run out", "run out (Kohli)"),
        ("hit wicket", "hit wicket b Bumrah"), ("retired out", "retired out"), ("retired hurt", "retired hurt"),
        ("retired not out", "retired not out"), ("obstructing the field", "obstructing the field"),
        ("handled the ball", "handled the ball"), ("hit the ball twice", "hit the ball twice"), ("timed out", "timed out"),
    ]

    @Test("each kind survives the feed's score name: counted against the side, credited to the bowler, named by the Laws")
    func everyKind() throws {
        for (kind, expected) in Self.laws {
            let wicket = try JSONDecoder().decode(CricsheetDelivery.Wicket.self,
                                                  from: Data(#"{"kind": "\#(kind)", "player_out": "X"}"#.utf8))
            let name = ScoreDictionary.dismissalName(wicket)
            let parsed = DismissalKind(scoreName: name)
            #expect(parsed != .other, "\(kind) → \(name)")
            #expect(parsed.countsAgainstTeam == CricketRules.isTeamWicket(kind), "\(kind)")
            #expect(parsed.creditsBowler == CricketRules.creditsBowler(kind), "\(kind)")
            let how = DismissalText.how(parsed, bowler: "Bumrah", fielder: kind == "caught and bowled" ? "Bumrah" : "Kohli",
                                        caughtAndBowled: kind == "caught and bowled")
            #expect(how == expected, "\(kind)")
        }
        #expect(DismissalKind.all(in: "1 Run + Run Out + Retired Out") == [.runOut, .retiredOut])
        #expect(DismissalKind.all(in: "4 Byes") == [] && DismissalKind.all(in: "1 No Ball + 1 Run") == [])
        #expect(DismissalKind(scoreName: "1 Bye + Retired Hurt") == .retiredHurt)
    }

    static func score(_ name: String, wicket: Bool) -> SportMonksScore {
        SportMonksScore(id: 1, name: name, runs: 0, four: false, six: false, bye: 0, legBye: 0, noball: 0, noballRuns: 0,
                        isWicket: wicket, ball: true, out: wicket)
    }

    @Test("team wickets: one per dismissal that counts; retired hurt and not out cost none")
    func teamWickets() {
        #expect(Self.score("Catch Out + Timed Out", wicket: true).teamWickets == 2)
        #expect(Self.score("Run Out + Retired Hurt", wicket: true).teamWickets == 1)
        #expect(Self.score("Retired Hurt", wicket: false).teamWickets == 0)
        #expect(Self.score("Retired Not Out", wicket: false).teamWickets == 0)
        #expect(Self.score("Out", wicket: true).teamWickets == 1)
        let facts = BallFacts(Self.score("Catch Out + Timed Out", wicket: true))
        #expect(facts.teamDismissals == [.caught, .timedOut] && facts.bowlerWickets == 1 && facts.label == "W")
        let hurt = BallFacts(Self.score("Retired Hurt", wicket: false))
        #expect(hurt.dismissals == [.retiredHurt] && hurt.teamWickets == 0 && !hurt.isWicket)
    }

    /// A run out and a retired out on one ball: the ball names the run-out batter, the batting card the other.
    static func twoOnOneBall(card: Bool) -> SportMonksFixture {
        var specs = [F.Spec](repeating: F.Spec(bowler: 104, striker: 201, nonStriker: 202, outcome: .runs(0)), count: 3)
        specs.append(F.Spec(bowler: 104, striker: 201, nonStriker: 202, outcome: .out("Run Out + Retired Out"),
                            outBatter: 202))
        var balls = F.balls(specs)
        balls[3].runoutById = 103
        var fixture = F.fixture(balls)
        fixture.runs?[0].wickets = 2
        if card {
            fixture.batting = [SportMonksBatting(id: 1, sort: 1, fixtureId: 9, teamId: 2, active: false, scoreboard: "S1",
                                                 playerId: 201, wicketId: 9, ball: 4, scoreId: 9, score: 0, fourX: 0, sixX: 0,
                                                 catchStumpPlayerId: nil, runoutById: nil, batsmanoutId: nil,
                                                 bowlingPlayerId: nil, fowScore: 0, fowBalls: balls[3].ball, rate: 0,
                                                 updatedAt: nil)]
        }
        return fixture
    }

    @Test("two dismissals on one delivery: two wicket events, the first alerting and naming both, the second silent")
    func twoOnOneDelivery() throws {
        let detector = MatchDetector(configuration: .noCooldowns)
        let before = F.fixture(Array(Self.twoOnOneBall(card: true).balls!.prefix(3)))
        let state = detector.process(fixture: before, matchId: "9", polledAt: 1_000_000, state: nil).state
        let outcome = detector.process(fixture: Self.twoOnOneBall(card: true), matchId: "9", polledAt: 1_040_000, state: state)
        let wickets = outcome.detected.filter { $0.kind == .wicket }
        try #require(wickets.count == 2)
        #expect(wickets[0].title == "2 wickets! AUS 0/2 (0.4)")
        #expect(wickets[0].body == "Travis Head run out (Kohli) 0 (0) · David Warner retired out 0 (4)")
        #expect(wickets[1].key == "wicket:4:2" && wickets[1].body == "David Warner retired out 0 (4)")
        let alerts = outcome.events.compactMap(\.keyEvent).filter { $0.priority == 10 }
        #expect(alerts.count == 1 && alerts.first?.alert?.body == wickets[0].body)
        #expect(outcome.state.displayState?.compactLeading.score == "0/2")

        // Without the batting card the second batter is not known yet: the event still says what happened.
        let unknown = detector.process(fixture: Self.twoOnOneBall(card: false), matchId: "9", polledAt: 1_040_000, state: state)
        #expect(unknown.detected.filter { $0.kind == .wicket }.map(\.body).last == "Batter retired out")
    }

    @Test("four dismissals on one delivery: four events, the alert names two and counts the rest")
    func manyOnOneDelivery() throws {
        var specs = [F.Spec](repeating: F.Spec(bowler: 104, striker: 201, nonStriker: 202, outcome: .runs(0)), count: 2)
        specs.append(F.Spec(bowler: 104, striker: 201, nonStriker: 202,
                            outcome: .out("Run Out + Retired Out + Retired Out + Retired Out"), outBatter: 202))
        var balls = F.balls(specs)
        balls[2].runoutById = 103
        let detector = MatchDetector(configuration: .noCooldowns)
        let state = detector.process(fixture: F.fixture(Array(balls.prefix(2))), matchId: "9", polledAt: 1_000_000, state: nil).state
        let outcome = detector.process(fixture: F.fixture(balls), matchId: "9", polledAt: 1_040_000, state: state)
        let wickets = outcome.detected.filter { $0.kind == .wicket }
        #expect(wickets.count == 4 && wickets[0].title == "4 wickets! AUS 0/4 (0.3)")
        #expect(wickets[0].body == "Travis Head run out (Kohli) 0 (0) · Batter retired out · and 2 more")
        #expect(outcome.events.compactMap(\.keyEvent).filter { $0.priority == 10 }.count == 1)
    }

    @Test("1384429: a catch and a timed out on one ball — two wicket events, one alert naming Samarawickrama and Mathews")
    func timedOut() throws {
        let match = try DataDirectory.match(1384429)
        let builder = SportMonksFixtureBuilder(match: match)
        let firstInnings = try #require(match.innings.first)
        let before = firstInnings.overs.prefix { $0.over < 24 }.reduce(0) { $0 + $1.deliveries.count } + 1
        let detector = MatchDetector(configuration: .noCooldowns)
        let state = detector.process(fixture: builder.fixture(at: .inProgress(before)), matchId: "m", polledAt: 1_000_000,
                                     state: nil).state
        let outcome = detector.process(fixture: builder.fixture(at: .inProgress(before + 1)), matchId: "m",
                                       polledAt: 1_040_000, state: state)
        let wickets = outcome.detected.filter { $0.kind == .wicket }
        try #require(wickets.count == 2)
        #expect(wickets[0].title == "2 wickets! SL 135/5 (24.2)")
        #expect(wickets[0].body.hasPrefix("S Samarawickrama c "))
        #expect(wickets[0].body.hasSuffix(" · AD Mathews timed out 0 (0)"))
        #expect(wickets[1].body == "AD Mathews timed out 0 (0)")
        let keyEvents = outcome.events.compactMap(\.keyEvent)
        #expect(keyEvents.map(\.priority) == [10, 5])
    }
}
