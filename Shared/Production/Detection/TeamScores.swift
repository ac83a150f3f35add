import Contracts
import Cricket

/// Team names, abbreviations and score lines of one analysed fixture.
struct TeamScores {
    let analysis: MatchAnalysis

    func team(_ id: Int?) -> SportMonksTeam? {
        guard let id else { return nil }
        let fixture = analysis.fixture
        if fixture.localteam?.id == id { return fixture.localteam }
        if fixture.visitorteam?.id == id { return fixture.visitorteam }
        return nil
    }

    /// "India"; "Team 123" when unnamed.
    func name(_ id: Int?) -> String {
        if let name = team(id)?.name, !name.isEmpty { return name }
        return id.map { "Team \($0)" } ?? "TBC"
    }

    /// "IND": the SportMonks code, else the first three letters of the name.
    func abbr(_ id: Int?) -> String {
        if let code = team(id)?.code, !code.isEmpty { return code }
        return String(name(id).filter { $0 != " " }.prefix(3)).uppercased()
    }

    /// One innings' score text: "87/6", "82", "89/7d".
    func score(_ number: Int) -> String {
        let totals = analysis.totals(number)
        return ScoreFormatter.score(runs: totals.runs, wickets: totals.wickets, allOut: analysis.isAllOut(number),
                                    declared: analysis.isDeclared(number))
    }

    /// Progress of one innings in the format's unit: "12.3", "90 balls" (The Hundred).
    func overs(_ number: Int) -> String {
        progress(legalBalls: analysis.totals(number).legalBalls)
    }

    /// `legalBalls` in the format's unit: "12.3", "90 balls".
    func progress(legalBalls: Int) -> String {
        OversFormatter.progress(legalBalls: legalBalls, format: analysis.format)
    }

    /// A bowler's figures in the format's unit: "2-24 (3.4)", "2-24 (15 balls)".
    func figures(_ tally: BowlerTally) -> String {
        ScoreFormatter.bowler(wickets: tally.wickets, runs: tally.runs, legalBalls: tally.legalBalls, format: analysis.format)
    }

    /// The chase equation in the format's unit: "need 45 off 30", "need 42 from 30 balls".
    func equation(runsNeeded: Int, ballsLeft: Int?) -> String? {
        ScoreFormatter.equation(runsNeeded: runsNeeded, ballsLeft: ballsLeft, countsBalls: analysis.format.countsBalls)
    }

    /// The innings of `teamId` that matter while innings `current` is played: the current super over's
    /// pair during super overs (main innings if the side has not batted in it yet), else every main innings.
    func relevantInnings(of teamId: Int?, current: Int) -> (numbers: [Int], superOver: Int?) {
        let format = analysis.format
        let all = analysis.innings.filter { $0.teamId == teamId }.map(\.number)
        if let index = format.superOverIndex(current) {
            let pair = all.filter { format.superOverIndex($0) == index }
            if !pair.isEmpty { return (pair, index) }
        }
        return (all.filter { !format.isSuperOver($0) }, nil)
    }

    /// The expanded view's team line.
    func teamScore(_ teamId: Int?, current: Int) -> UnifiedDisplayState.TeamScore {
        let (numbers, superOver) = relevantInnings(of: teamId, current: current)
        let label = superOver.map { " · " + ScoreFormatter.superOverLabel($0) } ?? ""
        guard let last = numbers.last else {
            return .init(abbr: abbr(teamId), name: name(teamId), score: "", overs: "")
        }
        return .init(abbr: abbr(teamId), name: name(teamId) + label,
                     score: ScoreFormatter.joined(numbers.map(score)), overs: overs(last))
    }
}
