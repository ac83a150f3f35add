import Cricket

/// The per-innings includes: runs, scoreboards, batting, bowling and balls.
extension SportMonksFixtureBuilder {
    func otherTeam(_ name: String) -> String? { match.info.teams.first { $0 != name } }

    func lastUpdate(_ inning: InningsReplay) -> String {
        inning.deliveries.last.map { times.delivery($0.matchIndex) } ?? times.startingAt
    }

    func runRows(_ replay: MatchReplay) -> [SportMonksRun] {
        replay.innings.map { inning in
            let pp = match.innings[inning.matchInningsIndex].powerplays.map { p in
                "\(Int(p.from) + 1)-\(Int(p.to) + 1)"
            }
            return SportMonksRun(
                id: match.id * 10 + inning.number, fixtureId: match.id, teamId: teamId(inning.team) ?? 0,
                inning: inning.number, score: inning.runs, wickets: inning.wickets,
                overs: SportMonksNumber.overs(legalBalls: inning.legalBalls, ballsPerOver: ballsPerOver),
                pp1: pp.count > 0 ? pp[0] : nil, pp2: pp.count > 1 ? pp[1] : nil, pp3: pp.count > 2 ? pp[2] : nil,
                updatedAt: lastUpdate(inning))
        }
    }

    func scoreboardRows(_ replay: MatchReplay) -> [SportMonksScoreboard] {
        replay.innings.flatMap { inning -> [SportMonksScoreboard] in
            let team = teamId(inning.team) ?? 0
            let updated = lastUpdate(inning)
            let overs = SportMonksNumber.overs(legalBalls: inning.legalBalls, ballsPerOver: ballsPerOver)
            return [
                SportMonksScoreboard(id: match.id * 100 + inning.number * 2, fixtureId: match.id, teamId: team,
                                     type: "extra", scoreboard: inning.scoreboard, wide: inning.wideRuns,
                                     noballRuns: inning.noballRuns, noballBalls: inning.noballBalls,
                                     bye: inning.byes, legBye: inning.legbyes, penalty: inning.penalty,
                                     total: 0, overs: 0, wickets: 0, updatedAt: updated),
                SportMonksScoreboard(id: match.id * 100 + inning.number * 2 + 1, fixtureId: match.id, teamId: team,
                                     type: "total", scoreboard: inning.scoreboard, wide: 0, noballRuns: 0,
                                     noballBalls: 0, bye: 0, legBye: 0, penalty: 0, total: inning.runs,
                                     overs: overs, wickets: inning.wickets, updatedAt: updated),
            ]
        }
    }

    func battingRows(_ replay: MatchReplay) -> [SportMonksBatting] {
        replay.innings.flatMap { inning in
            inning.batters.map { line in
                let dismissal = line.dismissal
                let scoreId: Int
                if let dismissal {
                    scoreId = ScoreDictionary.id(for: ScoreDictionary.dismissalName(
                        .init(kind: dismissal.kind, playerOut: line.name, fielders: nil)))
                } else if let retirement = line.retirement {
                    scoreId = ScoreDictionary.id(for: ScoreDictionary.dismissalName(
                        .init(kind: retirement, playerOut: line.name, fielders: nil)))
                } else {
                    scoreId = ScoreDictionary.notOutId
                }
                let fielderId = dismissal?.fielder.map(playerId)
                let isRunOut = dismissal?.kind == "run out"
                let rate = line.balls == 0 ? 0 : (Double(line.runs) * 100 / Double(line.balls)).rounded()
                return SportMonksBatting(
                    id: match.id * 1000 + inning.number * 40 + line.sort, sort: line.sort, fixtureId: match.id,
                    teamId: teamId(inning.team) ?? 0, active: false, scoreboard: inning.scoreboard,
                    playerId: playerId(line.name), wicketId: scoreId, ball: line.balls, scoreId: scoreId,
                    score: line.runs, fourX: line.fours, sixX: line.sixes,
                    catchStumpPlayerId: isRunOut ? nil : fielderId, runoutById: isRunOut ? fielderId : nil,
                    batsmanoutId: nil, bowlingPlayerId: dismissal?.bowler.map(playerId),
                    fowScore: dismissal?.fowScore ?? 0, fowBalls: dismissal?.fowBall ?? 0, rate: rate,
                    updatedAt: lastUpdate(inning))
            }
        }
    }

    func bowlingRows(_ replay: MatchReplay) -> [SportMonksBowling] {
        replay.innings.flatMap { inning in
            inning.bowlers.map { line in
                let economy = line.legalBalls == 0
                    ? 0 : (Double(line.runs) * Double(ballsPerOver) / Double(line.legalBalls) * 100).rounded() / 100
                return SportMonksBowling(
                    id: match.id * 1000 + 500 + inning.number * 40 + line.sort, sort: line.sort,
                    fixtureId: match.id, teamId: otherTeam(inning.team).flatMap(teamId) ?? 0, active: false,
                    scoreboard: inning.scoreboard, playerId: playerId(line.name),
                    overs: SportMonksNumber.overs(legalBalls: line.legalBalls, ballsPerOver: ballsPerOver),
                    medians: line.maidens, runs: line.runs, wickets: line.wickets, wide: line.wideRuns,
                    noball: line.noballs, rate: economy, updatedAt: lastUpdate(inning))
            }
        }
    }

    func ballRows(_ replay: MatchReplay) -> [SportMonksBall] {
        replay.innings.flatMap { inning -> [SportMonksBall] in
            let team = teams[inning.team]
            let sortOf = Dictionary(inning.batters.map { ($0.name, $0.sort) }, uniquingKeysWith: { a, _ in a })
            return inning.deliveries.map { item in
                let d = item.delivery
                let pair = [d.batter, d.nonStriker].sorted { (sortOf[$0] ?? 0) < (sortOf[$1] ?? 0) }
                let wicket = (d.wickets ?? []).first { CricketRules.isTeamWicket($0.kind) } ?? d.wickets?.first
                let fielder = wicket.flatMap { w in
                    w.kind == "caught and bowled" ? d.bowler : w.fielders?.first?.name
                }.map(playerId)
                let isRunOut = wicket?.kind == "run out"
                let score = ScoreDictionary.score(for: d)
                return SportMonksBall(
                    id: match.id * 10_000 + item.matchIndex + 1, fixtureId: match.id, teamId: team?.id ?? 0,
                    ball: item.ballNumber, scoreboard: inning.scoreboard,
                    batsmanOneOnCreezeId: playerId(pair[0]), batsmanTwoOnCreezeId: playerId(pair[1]),
                    batsmanId: playerId(d.batter), bowlerId: playerId(d.bowler),
                    batsmanoutId: wicket.map { playerId($0.playerOut) },
                    catchstumpId: isRunOut ? nil : fielder, runoutById: isRunOut ? fielder : nil,
                    scoreId: score.id, batsman: players[d.batter], bowler: players[d.bowler], score: score,
                    team: team, updatedAt: times.delivery(item.matchIndex))
            }
        }
    }

    var ballsPerOver: Int { match.info.ballsPerOver ?? 6 }
}
