import Contracts
import Cricket

/// Who is at the crease and bowling, and the last six deliveries of the current innings.
struct CreaseView {
    let analysis: MatchAnalysis
    let innings: InningsLedger

    var lastBall: SportMonksBall? { innings.ballIndexes.last.map { analysis.balls[$0] } }

    /// The two batters not out after the last delivery, in batting order, with who faces next.
    func batters() -> [UnifiedDisplayState.BatterLine] {
        guard let ball = lastBall else { return [] }
        let facts = BallFacts(ball.score)
        let pair = [ball.batsmanOneOnCreezeId, ball.batsmanTwoOnCreezeId, ball.batsmanId].compactMap { $0 }
        var ids: [Int] = []
        for id in pair where !ids.contains(id) && innings.batters[id]?.isOut != true { ids.append(id) }
        let striker = nextStriker(ball, facts: facts)
        return ids.compactMap { innings.batters[$0] }.sorted { $0.order < $1.order }.prefix(2).map { tally in
            .init(name: analysis.players.fullName(tally.playerId),
                  score: ScoreFormatter.batter(runs: tally.runs, balls: tally.balls), onStrike: tally.playerId == striker)
        }
    }

    /// The batter facing the next delivery: the striker, swapped for odd runs ran and when the ends change (every
    /// over; every ten balls in The Hundred).
    func nextStriker(_ ball: SportMonksBall, facts: BallFacts) -> Int? {
        let other = [ball.batsmanOneOnCreezeId, ball.batsmanTwoOnCreezeId].compactMap { $0 }
            .first { $0 != ball.batsmanId }
        var swap = facts.runsRan % 2 == 1
        if facts.isLegal, innings.totals.legalBalls % analysis.format.ballsPerEnd == 0 { swap.toggle() }
        return swap ? other : ball.batsmanId
    }

    /// "Jasprit Bumrah" with "2-24 (3.4)" ("2-24 (15 balls)" in The Hundred) for the bowler of the last delivery.
    func bowler() -> UnifiedDisplayState.BowlerLine? {
        guard let ball = lastBall, let tally = innings.bowlers[ball.bowlerId] else { return nil }
        return .init(name: analysis.players.fullName(ball.bowlerId), figures: TeamScores(analysis: analysis).figures(tally))
    }

    /// The last six deliveries, oldest first: "1", "4", "W", "•", "1wd", "6".
    func lastBalls() -> [String] {
        innings.ballIndexes.suffix(6).map { BallFacts(analysis.balls[$0].score).label }
    }

    /// "Rohit Sharma 45 (32) · Virat Kohli 12 (10)".
    func battersLine() -> String {
        batters().map { "\($0.name) \($0.score)" }.joined(separator: " · ")
    }
}
