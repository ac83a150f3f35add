/// Replays the first N deliveries of a Cricsheet match into per-innings scorecards.
public struct MatchReplay: Sendable, Hashable {
    /// Innings that have started (at least one delivery replayed), in playing order.
    public var innings: [InningsReplay]
    /// Deliveries replayed (clamped to the match length).
    public var deliveries: Int

    /// Replays `deliveries` deliveries of `match` (all when nil).
    public init(match: CricsheetMatch, deliveries: Int? = nil) {
        let limit = min(deliveries ?? match.totalDeliveries, match.totalDeliveries)
        let ballsPerOver = match.info.ballsPerOver ?? 6
        var replayed = 0
        var result: [InningsReplay] = []
        var number = 0
        for (index, source) in match.innings.enumerated() where source.deliveryCount > 0 {
            guard replayed < limit else { break }
            number += 1
            let take = min(source.deliveryCount, limit - replayed)
            result.append(Self.replay(source, index: index, number: number, firstMatchIndex: replayed,
                                      take: take, ballsPerOver: ballsPerOver))
            replayed += take
        }
        self.innings = result
        self.deliveries = replayed
    }

    /// The innings currently being played (the last started one).
    public var current: InningsReplay? { innings.last }

    private static func replay(_ source: CricsheetInnings, index: Int, number: Int, firstMatchIndex: Int, take: Int,
                               ballsPerOver: Int) -> InningsReplay {
        var state = InningsReplay(matchInningsIndex: index, number: number, team: source.team,
                                  superOver: source.superOver, declared: false,
                                  isComplete: take == source.deliveryCount, target: source.target)
        var batterIndex: [String: Int] = [:]
        var bowlerIndex: [String: Int] = [:]
        // over number → (bowlers, runs conceded, legal balls) for maidens.
        var overLedger: [Int: (bowlers: Set<String>, conceded: Int, legal: Int)] = [:]

        func batter(_ name: String) -> Int {
            if let found = batterIndex[name] { return found }
            state.batters.append(InningsReplay.BatterLine(name: name, sort: state.batters.count + 1))
            batterIndex[name] = state.batters.count - 1
            return state.batters.count - 1
        }
        func bowler(_ name: String) -> Int {
            if let found = bowlerIndex[name] { return found }
            state.bowlers.append(InningsReplay.BowlerLine(name: name, sort: state.bowlers.count + 1))
            bowlerIndex[name] = state.bowlers.count - 1
            return state.bowlers.count - 1
        }

        state.runs += source.penaltyRuns?.pre ?? 0
        state.penalty += source.penaltyRuns?.pre ?? 0
        var count = 0
        overs: for over in source.overs {
            var legalInOver = 0
            for delivery in over.deliveries {
                guard count < take else { break overs }
                let striker = batter(delivery.batter)
                let nonStriker = batter(delivery.nonStriker)
                _ = nonStriker
                if state.batters[striker].retirement != nil { state.batters[striker].retirement = nil }
                if state.batters[nonStriker].retirement != nil { state.batters[nonStriker].retirement = nil }
                let bowlerAt = bowler(delivery.bowler)
                let extras = delivery.extras
                let wides = extras?.wides ?? 0
                let noballs = extras?.noballs ?? 0
                let ballInOver = legalInOver + 1

                // Team.
                state.runs += delivery.runs.total
                state.wideRuns += wides
                state.noballRuns += noballs
                if noballs > 0 { state.noballBalls += 1 }
                state.byes += extras?.byes ?? 0
                state.legbyes += extras?.legbyes ?? 0
                state.penalty += extras?.penalty ?? 0
                if delivery.isLegal { state.legalBalls += 1; legalInOver += 1 }

                // Batter.
                state.batters[striker].runs += delivery.runs.batter
                if wides == 0 { state.batters[striker].balls += 1 }
                if delivery.runs.nonBoundary != true {
                    if delivery.runs.batter == 4 { state.batters[striker].fours += 1 }
                    if delivery.runs.batter == 6 { state.batters[striker].sixes += 1 }
                }

                // Bowler.
                let conceded = delivery.runs.batter + wides + noballs
                state.bowlers[bowlerAt].runs += conceded
                state.bowlers[bowlerAt].wideRuns += wides
                if noballs > 0 { state.bowlers[bowlerAt].noballs += 1 }
                if delivery.isLegal { state.bowlers[bowlerAt].legalBalls += 1 }
                var ledger = overLedger[over.over] ?? ([], 0, 0)
                ledger.bowlers.insert(delivery.bowler)
                ledger.conceded += conceded
                ledger.legal += delivery.isLegal ? 1 : 0
                overLedger[over.over] = ledger

                // Wickets.
                let ballNumber = SportMonksNumber.over(over.over, ball: ballInOver)
                for wicket in delivery.wickets ?? [] {
                    let out = batter(wicket.playerOut)
                    if CricketRules.isTeamWicket(wicket.kind) {
                        state.wickets += 1
                        let credited = CricketRules.creditsBowler(wicket.kind)
                        if credited { state.bowlers[bowlerAt].wickets += 1 }
                        let fielder = wicket.kind == "caught and bowled"
                            ? delivery.bowler : wicket.fielders?.first?.name
                        state.batters[out].dismissal = InningsReplay.Dismissal(
                            kind: wicket.kind, bowler: credited ? delivery.bowler : nil, fielder: fielder,
                            fowScore: state.runs, fowBall: ballNumber)
                        state.batters[out].retirement = nil
                    } else {
                        state.batters[out].retirement = wicket.kind
                    }
                }
                state.deliveries.append(InningsReplay.Delivery(
                    matchIndex: firstMatchIndex + count, over: over.over, ballInOver: ballInOver,
                    delivery: delivery, totalAfter: state.runs, wicketsAfter: state.wickets))
                count += 1
            }
        }
        for (_, ledger) in overLedger where ledger.legal >= ballsPerOver && ledger.conceded == 0 && ledger.bowlers.count == 1 {
            if let name = ledger.bowlers.first, let at = bowlerIndex[name] { state.bowlers[at].maidens += 1 }
        }
        if state.isComplete {
            state.runs += source.penaltyRuns?.post ?? 0
            state.penalty += source.penaltyRuns?.post ?? 0
            state.declared = source.declared
            for name in source.absentHurt where batterIndex[name] == nil {
                let at = batter(name)
                state.batters[at].retirement = "absent hurt"
            }
        }
        return state
    }
}
