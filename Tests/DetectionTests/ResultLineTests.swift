import Contracts
import Cricket
import Testing
@testable import Detection

/// The result line, one test per row of docs/FORMATS.md's "Result lines" table that the 25 real matches of the
/// golden replays do not already cover (those compare every match's line with `ExpectedResultLine`): outcomes
/// the data has no match for, and feeds whose outcome fields contradict their balls.
@Suite("Result lines as broadcasters word them")
struct ResultLineTests {
    /// An innings of `team` (1 India, 2 Australia) scoring `runs` for `wickets`, in sixes and singles, then the
    /// wickets.
    static func innings(_ board: String, team: Int, runs: Int, wickets: Int, firstId: Int) -> [SportMonksBall] {
        let (bowler, striker, partner) = team == 1 ? (201, 101, 102) : (101, 201, 202)
        func spec(_ outcome: FixtureFactory.Outcome) -> FixtureFactory.Spec {
            FixtureFactory.Spec(bowler: bowler, striker: striker, nonStriker: partner, outcome: outcome)
        }
        let specs = Array(repeating: spec(.six), count: runs / 6) + Array(repeating: spec(.runs(1)), count: runs % 6)
            + Array(repeating: spec(.out("Clean Bowled")), count: wickets)
        return FixtureFactory.balls(specs, scoreboard: board, team: team, firstId: firstId)
    }

    /// A finished fixture from innings (board, team, runs, wickets); a Test unless `overs` is given.
    static func finished(_ innings: [(String, Int, Int, Int)], winner: Int?, note: String? = nil, overs: Int? = nil,
                         status: SportMonksStatus = .finished) -> SportMonksFixture {
        var balls: [SportMonksBall] = []
        for (board, team, runs, wickets) in innings {
            balls += Self.innings(board, team: team, runs: runs, wickets: wickets, firstId: balls.count + 1)
        }
        var fixture = FixtureFactory.fixture(balls, status: status, note: note)
        if let overs { fixture.totalOversPlayed = overs } else { fixture.type = "Test"; fixture.totalOversPlayed = nil }
        fixture.winnerTeamId = winner
        return fixture
    }

    static func line(_ fixture: SportMonksFixture) -> ResultLine.Verdict {
        let analysis = MatchAnalysis(fixture: fixture, watermark: 0)
        return ResultLine(analysis: analysis, teams: TeamScores(analysis: analysis)).verdict()
    }

    @Test("a Test won by an innings: the winner batted once and the loser, following on, twice")
    func innings() {
        let fixture = Self.finished([("S1", 1, 400, 10), ("S2", 2, 150, 10), ("S3", 2, 200, 10)], winner: 1)
        #expect(Self.line(fixture) == .init(line: "India won by an innings and 50 runs"))
    }

    @Test("a Test won by runs: the side batting last all out behind")
    func byRuns() {
        let fixture = Self.finished([("S1", 1, 300, 10), ("S2", 2, 250, 10), ("S3", 1, 200, 10), ("S4", 2, 200, 10)], winner: 1)
        #expect(Self.line(fixture) == .init(line: "India won by 50 runs"))
    }

    @Test("a Test won chasing: by the wickets in hand")
    func chase() {
        let fixture = Self.finished([("S1", 1, 300, 10), ("S2", 2, 250, 10), ("S3", 1, 200, 10), ("S4", 2, 251, 7)], winner: 2)
        #expect(Self.line(fixture) == .init(line: "Australia won by 3 wickets"))
    }

    @Test("a tied Test: the last innings all out with the aggregates level")
    func tiedTest() {
        let fixture = Self.finished([("S1", 1, 300, 10), ("S2", 2, 250, 10), ("S3", 1, 200, 10), ("S4", 2, 250, 10)], winner: nil)
        #expect(Self.line(fixture) == .init(line: "Match tied"))
    }

    @Test("a drawn Test: finished without a winner and the last innings not over")
    func draw() {
        let fixture = Self.finished([("S1", 1, 300, 10), ("S2", 2, 250, 10), ("S3", 1, 200, 4)], winner: nil)
        #expect(Self.line(fixture) == .init(line: "Match drawn"))
    }

    @Test("abandoned without a ball bowled; cancelled; a limited-overs match abandoned after play is no result")
    func abandoned() {
        #expect(Self.line(Self.finished([], winner: nil, overs: 20, status: .abandoned)) == .init(line: "Match abandoned without a ball bowled"))
        #expect(Self.line(Self.finished([], winner: nil, overs: 20, status: .cancelled)) == .init(line: "Match cancelled"))
        #expect(Self.line(Self.finished([("S1", 1, 60, 2)], winner: nil, overs: 20, status: .abandoned)) == .init(line: "No result"))
        #expect(Self.line(Self.finished([("S1", 1, 60, 2)], winner: nil, status: .abandoned)) == .init(line: "Match drawn"))
    }

    @Test("awarded, conceded and forfeited matches: the feed's winner, the way its note says it was decided",
          arguments: [("Match awarded to India", "India won (awarded)"), ("Australia conceded the match", "India won (conceded)"),
                      ("Australia forfeited the match", "India won (forfeited)")])
    func decidedOffTheField(note: String, line: String) {
        let fixture = Self.finished([("S1", 1, 120, 3), ("S2", 2, 40, 1)], winner: 1, note: note)
        #expect(Self.line(fixture) == .init(line: line))
    }

    @Test("a tie settled by a bowl-out (no super-over balls), and by boundary count after a tied super over")
    func ties() {
        let bowlOut = Self.finished([("S1", 1, 141, 9), ("S2", 2, 141, 10)], winner: 1, overs: 20)
        #expect(Self.line(bowlOut) == .init(line: "Match tied (India won the bowl-out)"))
        let boundaries = Self.finished([("S1", 2, 241, 10), ("S2", 1, 241, 10), ("S3", 1, 15, 0), ("S4", 2, 15, 1)],
                                       winner: 1, note: "Match tied (India won the Super Over)", overs: 50)
        #expect(Self.line(boundaries) == .init(line: "Match tied (India won on boundary count)"))
        let second = Self.finished([("S1", 2, 176, 10), ("S2", 1, 176, 10), ("S3", 1, 5, 2), ("S4", 2, 5, 1),
                                    ("S5", 2, 11, 1), ("S6", 1, 15, 0)], winner: 1, overs: 20)
        #expect(Self.line(second) == .init(line: "Match tied (India won the 2nd Super Over)"))
    }

    @Test("Finished before winner_team_id is filled: the balls name the winner")
    func winnerLagging() {
        let fixture = Self.finished([("S1", 1, 150, 10), ("S2", 2, 100, 10)], winner: nil, overs: 20)
        #expect(Self.line(fixture) == .init(line: "India won by 50 runs"))
    }

    @Test("a winner_team_id that contradicts the balls is not shown: the balls' winner is, and the contradiction is reported")
    func contradictingWinner() {
        let fixture = Self.finished([("S1", 1, 150, 10), ("S2", 2, 100, 10)], winner: 2, note: "Australia won by 5 wickets", overs: 20)
        #expect(Self.line(fixture) == .init(line: "India won by 50 runs", contradiction: .winnerContradictsBalls(claimed: 2, balls: 1)))
        let outcome = MatchDetector().process(fixture: fixture, matchId: "9", polledAt: 1_800_000_000_000, state: nil)
        #expect(outcome.contradictions == [.winnerContradictsBalls(claimed: 2, balls: 1)])
        #expect(outcome.events.last?.displayState.resultLine == "India won by 50 runs")
        #expect(outcome.detected.first { $0.kind == .result }?.body == "India won by 50 runs")
    }

    @Test("a runs row with impossible wickets, or naming the other team, is ignored for the balls and reported")
    func contradictingInningsRows() {
        var fixture = Self.finished([("S1", 1, 150, 4)], winner: nil, overs: 20, status: .innings(1))
        fixture.runs?[0].wickets = 11
        var analysis = MatchAnalysis(fixture: fixture, watermark: 0)
        #expect(analysis.totals(1).wickets == 4)
        #expect(analysis.contradictions == [.inningsWicketsImpossible(inning: 1, wickets: 11)])
        fixture.runs?[0].wickets = 4
        fixture.runs?[0].teamId = 2
        fixture.runs?[0].score = 999
        analysis = MatchAnalysis(fixture: fixture, watermark: 0)
        #expect(analysis.ledger(1)?.teamId == 1 && analysis.totals(1).runs == 150)
        #expect(analysis.contradictions == [.inningsTeamContradictsBalls(inning: 1, row: 2, balls: 1)])
    }
}
