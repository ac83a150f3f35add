import SharedTestSupport
import Contracts
import CricsheetReplay
import Cricket
import Foundation
import Testing
@testable import Detection

/// Every format as its broadcasters show it (issue 32): The Hundred in balls, T10 and other short formats in overs.
@Suite("Formats on screen")
struct FormatDisplayTests {
    @Test("formatters: balls in The Hundred, overs elsewhere")
    func formatters() {
        let hundred = MatchFormat.limited(overs: 20, ballsPerOver: 5), t20 = MatchFormat.limited(overs: 20)
        #expect(OversFormatter.progress(legalBalls: 90, format: hundred) == "90 balls")
        #expect(OversFormatter.progress(legalBalls: 1, format: hundred) == "1 ball")
        #expect(OversFormatter.progress(legalBalls: 90, format: t20) == "15")
        #expect(ScoreFormatter.bowler(wickets: 2, runs: 24, legalBalls: 15, format: hundred) == "2-24 (15 balls)")
        #expect(ScoreFormatter.bowler(wickets: 2, runs: 24, legalBalls: 15) == "2-24 (2.3)")
        #expect(ScoreFormatter.equation(runsNeeded: 42, ballsLeft: 30, countsBalls: true) == "need 42 from 30 balls")
        #expect(ScoreFormatter.equation(runsNeeded: 42, ballsLeft: 30) == "need 42 off 30")
        #expect(ScoreFormatter.target(runs: 120, revisedBalls: 80) == "Target 120 (80 balls, DLS)")
        #expect(hundred.scheduledBalls == 100 && hundred.ballsPerEnd == 10 && t20.ballsPerEnd == 6)
        #expect(RateFormatter.runRate(runs: 141, legalBalls: 100, ballsPerOver: 5) == "7.05")
    }

    @Test("the format read from a fixture: The Hundred by its league, T10 by its type")
    func formatOfFixture() {
        var fixture = SportMonksFixture(id: 1, status: .innings(1))
        fixture.type = "T20"
        fixture.totalOversPlayed = 20
        fixture.league = SportMonksLeague(id: 1, seasonId: nil, countryId: nil, name: "The Hundred Men's Competition",
                                          code: "T20", imagePath: nil, type: nil, updatedAt: nil)
        #expect(MatchFormat(fixture: fixture) == .limited(overs: 20, ballsPerOver: 5))
        fixture.league = nil
        #expect(MatchFormat(fixture: fixture) == .limited(overs: 20))
        fixture.type = "T10"
        fixture.totalOversPlayed = nil
        #expect(MatchFormat(fixture: fixture) == .limited(overs: 10))
        fixture.type = "The Hundred"
        #expect(MatchFormat(fixture: fixture) == .limited(overs: 20, ballsPerOver: 5))
    }

    /// Every string of every display state and alert of a Hundred replay counts balls, never overs.
    @Test("The Hundred replayed: progress, figures, equations and alerts in balls", arguments: [1417822, 1355593])
    func hundred(matchId: Int) throws {
        let match = try DataDirectory.match(matchId)
        let replay = GoldenReplayTests.replay(match)
        let states = replay.events.map(\.displayState)
        func inBalls(_ text: String) -> Bool { text.isEmpty || text.hasSuffix(" balls") || text.hasSuffix(" ball") }
        for state in states {
            #expect(inBalls(state.compactTrailing.overs), "\(state.compactTrailing.overs)")
            #expect(inBalls(state.expanded.batting.overs) && inBalls(state.expanded.bowling.overs))
            if let figures = state.expanded.bowler?.figures { #expect(figures.hasSuffix(" balls)") || figures.hasSuffix(" ball)"), "\(figures)") }
            if let equation = state.expanded.equation { #expect(equation.contains(" from ") && inBalls(equation), "\(equation)") }
            #expect(!state.statusText.contains(" off "), "\(state.statusText)")
        }
        // A team line in an event ("NS 141/9 (90 balls)", "… 2-24 (15 balls)") counts balls; no "need … off …".
        for event in replay.detected {
            #expect(!event.line.contains(" off "), "\(event.line)")
            for line in event.line.matches(of: /\d+[\/-]\d+d? \(([^)]*)\)/) {
                #expect(inBalls(String(line.output.1)), "\(event.line)")
            }
        }
        // The last main innings as the Lock Screen ends on it: "<abbr> <score> (<balls> balls)".
        let display = try #require(replay.state?.displayState)
        let last = try #require(match.innings.last { !$0.superOver })
        let legal = last.overs.flatMap(\.deliveries).filter(\.isLegal).count
        #expect(display.lockScreen.headline.hasSuffix("(\(legal) balls)"), "\(display.lockScreen.headline)")
        #expect(legal <= 100)
    }

    @Test("the first Hundred chase is set in balls: 'need N from 100 balls'")
    func hundredChase() throws {
        let match = try DataDirectory.match(1417822)
        let replay = GoldenReplayTests.replay(match)
        let target = try #require(replay.detected.first { $0.kind == .targetSet })
        #expect(target.body.hasSuffix(" from 100 balls"), "\(target.body)")
        let inningsEnd = try #require(replay.detected.first { $0.kind == .inningsEnd })
        #expect(inningsEnd.body.contains(" balls) · "), "\(inningsEnd.body)")
    }

    /// A T10 made from a real T20 (there is no T10 in the data): both innings cut to their first 10 overs, the
    /// match declared 10 overs a side and won by the side ahead. Replayed through the same golden checks.
    static func t10(from id: Int) throws -> CricsheetMatch {
        var raw = try DataDirectory.raw(id)
        var info = raw["info"] as! [String: Any]
        var innings = (raw["innings"] as! [[String: Any]]).filter { ($0["super_over"] as? Bool) != true }.prefix(2).map { inning in
            var inning = inning
            inning["overs"] = (inning["overs"] as! [[String: Any]]).filter { ($0["over"] as! Int) < 10 }
            inning["target"] = nil
            inning["powerplays"] = nil
            return inning
        }
        func total(_ inning: [String: Any]) -> Int {
            (inning["overs"] as! [[String: Any]]).flatMap { $0["deliveries"] as! [[String: Any]] }
                .reduce(0) { $0 + (($1["runs"] as! [String: Any])["total"] as! Int) }
        }
        let first = total(innings[0]), second = total(innings[1])
        guard first > second else { throw CricsheetDecodeError.invalidField(matchId: id, path: "innings", reason: "the chase is ahead after 10 overs") }
        innings[1]["target"] = ["runs": first + 1, "overs": 10]
        info["overs"] = 10
        info["outcome"] = ["winner": innings[0]["team"] as! String, "by": ["runs": first - second]]
        raw["info"] = info
        raw["innings"] = innings
        return try CricsheetMatch.decode(from: JSONSerialization.data(withJSONObject: raw), id: id)
    }

    @Test("T10: 60 balls a side, 'need N off M' from 60, the golden checks on a ten-over match")
    func t10() throws {
        let match = try Self.t10(from: 335982)
        let replay = GoldenReplayTests.replay(match)
        let target = try #require(replay.detected.first { $0.kind == .targetSet })
        #expect(target.body.hasSuffix(" off 60"), "\(target.body)")
        let display = try #require(replay.state?.displayState)
        #expect(display.matchDisplayState == .ended && display.resultLine == ExpectedResultLine.of(match))
        #expect(display.expanded.batting.overs == "10" || display.expanded.bowling.overs == "10")
        let fours = replay.detected.filter { $0.kind == .four }.count
        let expected = match.innings.flatMap(\.overs).flatMap(\.deliveries)
            .filter { $0.runs.batter == 4 && $0.runs.nonBoundary != true }.count
        #expect(fours == expected)
    }
}
