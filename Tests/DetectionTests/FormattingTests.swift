import Cricket
import Testing
@testable import Detection

@Suite("Formatting")
struct FormattingTests {
    @Test("overs from legal balls: 20 → 3.2, 120 → 20, never x.6")
    func overs() {
        #expect(OversFormatter.overs(legalBalls: 0) == "0")
        #expect(OversFormatter.overs(legalBalls: 5) == "0.5")
        #expect(OversFormatter.overs(legalBalls: 6) == "1")
        #expect(OversFormatter.overs(legalBalls: 20) == "3.2")
        #expect(OversFormatter.overs(legalBalls: 119) == "19.5")
        #expect(OversFormatter.overs(legalBalls: 120) == "20")
        #expect(OversFormatter.overs(legalBalls: 300) == "50")
        for balls in 0...600 {
            #expect(!OversFormatter.overs(legalBalls: balls).hasSuffix(".6"))
        }
        // SportMonks' own numbers are normalised: a stray 19.6 becomes 20.
        #expect(OversFormatter.overs(sportMonks: 19.6) == "20")
        #expect(OversFormatter.overs(sportMonks: 3.4) == "3.4")
        #expect(OversFormatter.overs(sportMonks: 0.1) == "0.1")
    }

    @Test("run rates to two decimals")
    func runRates() {
        #expect(RateFormatter.runRate(runs: 87, legalBalls: 75) == "6.96")
        #expect(RateFormatter.runRate(runs: 51, legalBalls: 36) == "8.50")
        #expect(RateFormatter.runRate(runs: 0, legalBalls: 0) == "0.00")
        #expect(RateFormatter.runRate(runs: 0, legalBalls: 6) == "0.00")
        #expect(RateFormatter.runRate(runs: 200, legalBalls: 120) == "10.00")
        #expect(RateFormatter.runRate(runs: 1, legalBalls: 7) == "0.86")   // 0.857 rounds up
        #expect(RateFormatter.runRate(runs: 36, legalBalls: 1) == "216.00")
    }

    @Test("required rates, nil when nothing needed or no balls left")
    func requiredRates() {
        #expect(RateFormatter.requiredRate(runsNeeded: 45, ballsLeft: 30) == "9.00")
        #expect(RateFormatter.requiredRate(runsNeeded: 181, ballsLeft: 120) == "9.05")
        #expect(RateFormatter.requiredRate(runsNeeded: 10, ballsLeft: 4) == "15.00")
        #expect(RateFormatter.requiredRate(runsNeeded: 0, ballsLeft: 30) == nil)
        #expect(RateFormatter.requiredRate(runsNeeded: 5, ballsLeft: 0) == nil)
    }

    @Test("scores: 87/6, all out 82, declared 89/7d, Test pairs")
    func scores() {
        #expect(ScoreFormatter.score(runs: 87, wickets: 6) == "87/6")
        #expect(ScoreFormatter.score(runs: 82, wickets: 10, allOut: true) == "82")
        #expect(ScoreFormatter.score(runs: 89, wickets: 7, declared: true) == "89/7d")
        #expect(ScoreFormatter.score(runs: 0, wickets: 0) == "0/0")
        #expect(ScoreFormatter.joined(["245", "120/3"]) == "245 & 120/3")
        #expect(ScoreFormatter.batter(runs: 45, balls: 32) == "45 (32)")
        #expect(ScoreFormatter.bowler(wickets: 2, runs: 24, legalBalls: 22) == "2-24 (3.4)")
        #expect(ScoreFormatter.teamLine(abbr: "IND", score: "87/6", overs: "12.3") == "IND 87/6 (12.3)")
    }

    @Test("equations and targets")
    func equations() {
        #expect(ScoreFormatter.equation(runsNeeded: 45, ballsLeft: 30) == "need 45 off 30")
        #expect(ScoreFormatter.equation(runsNeeded: 45, ballsLeft: nil) == "need 45 to win")
        #expect(ScoreFormatter.equation(runsNeeded: 0, ballsLeft: 30) == nil)
        #expect(ScoreFormatter.capitalised("need 45 off 30") == "Need 45 off 30")
        #expect(ScoreFormatter.target(runs: 181) == "Target 181")
        #expect(ScoreFormatter.target(runs: 302, revisedOvers: "40") == "Target 302 (40 ov, DLS)")
        #expect(ScoreFormatter.target(runs: 16, superOver: true) == "Target 16 (Super Over)")
    }

    @Test("super-over labels")
    func superOverLabels() {
        #expect(ScoreFormatter.superOverLabel(1) == "Super Over")
        #expect(ScoreFormatter.superOverLabel(2) == "Super Over 2")
        let t20 = MatchFormat.limited(overs: 20)
        #expect(t20.isSuperOver(3) && t20.isSuperOver(4) && !t20.isSuperOver(2))
        #expect(t20.superOverIndex(3) == 1 && t20.superOverIndex(4) == 1 && t20.superOverIndex(5) == 2)
        #expect(t20.isChase(2) && t20.isChase(4) && !t20.isChase(3) && t20.isChase(6))
        #expect(!MatchFormat.unlimited.isSuperOver(3) && MatchFormat.unlimited.isChase(4))
    }

    @Test("dismissal text")
    func dismissals() {
        #expect(DismissalText.line(batter: "Rohit Sharma", how: DismissalText.how(.caught, bowler: "Bumrah", fielder: "Kohli"),
                                   runs: 45, balls: 32) == "Rohit Sharma c Kohli b Bumrah 45 (32)")
        #expect(DismissalText.how(.caught, bowler: "Bumrah", fielder: "Bumrah", caughtAndBowled: true) == "c & b Bumrah")
        #expect(DismissalText.how(.caught, bowler: "Sharma", fielder: "Sharma") == "c Sharma b Sharma")
        #expect(DismissalText.how(.caught, bowler: "Bumrah", fielder: nil, substitute: true) == "c sub b Bumrah")
        #expect(DismissalText.how(.bowled, bowler: "Starc", fielder: nil) == "b Starc")
        #expect(DismissalText.how(.lbw, bowler: "Starc", fielder: nil) == "lbw b Starc")
        #expect(DismissalText.how(.stumped, bowler: "Jadeja", fielder: "Dhoni") == "st Dhoni b Jadeja")
        #expect(DismissalText.how(.runOut, bowler: "Jadeja", fielder: "Jadeja") == "run out (Jadeja)")
        #expect(DismissalText.how(.hitWicket, bowler: "Boult", fielder: nil) == "hit wicket b Boult")
        #expect(DismissalKind(scoreName: "1 Bye + Run Out") == .runOut)
        #expect(DismissalKind(scoreName: "Catch Out (Sub)") == .caught)
        #expect(DismissalKind(scoreName: "Clean Bowled") == .bowled)
        #expect(DismissalKind(scoreName: "LBW OUT") == .lbw)
        #expect(DismissalKind(scoreName: "Stump Out") == .stumped)
        #expect(!DismissalKind.runOut.creditsBowler && DismissalKind.stumped.creditsBowler)
    }

    @Test("ball labels and facts")
    func ballLabels() {
        func score(_ name: String, runs: Int, four: Bool = false, six: Bool = false, bye: Int = 0, legBye: Int = 0,
                   noball: Int = 0, wicket: Bool = false, ball: Bool = true) -> BallFacts {
            BallFacts(SportMonksScore(id: 1, name: name, runs: runs, four: four, six: six, bye: bye, legBye: legBye,
                                      noball: noball, noballRuns: noball, isWicket: wicket, ball: ball, out: wicket))
        }
        #expect(score("No Run", runs: 0).label == "•")
        #expect(score("1 Run", runs: 1).label == "1")
        #expect(score("FOUR", runs: 4, four: true).label == "4")
        #expect(score("SIX", runs: 6, six: true).label == "6")
        #expect(score("Catch Out", runs: 0, wicket: true).label == "W")
        #expect(score("1 Wide", runs: 1, ball: false).label == "1wd")
        let noBallFour = score("1 No Ball + 4 Runs", runs: 5, four: true, noball: 1)
        #expect(noBallFour.label == "5nb" && noBallFour.batRuns == 4 && !noBallFour.isLegal && noBallFour.facedByBatter)
        #expect(score("2 Leg Byes", runs: 0, legBye: 2).label == "2lb")
        #expect(score("1 Bye", runs: 0, bye: 1).label == "1b")
        let penalty = score("1 Run + 5 Penalty Runs", runs: 6)
        #expect(penalty.batRuns == 1 && penalty.bowlerRuns == 1 && penalty.teamRuns == 6)
        let wide = score("5 Wides", runs: 5, ball: false)
        #expect(wide.batRuns == 0 && wide.bowlerRuns == 5 && !wide.facedByBatter && wide.runsRan == 4)
    }
}
