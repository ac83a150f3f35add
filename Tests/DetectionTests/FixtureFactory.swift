import Cricket
@testable import Detection

/// Hand-built SportMonks fixtures for detector tests: two teams, named players, balls from short specs.
struct FixtureFactory {
    static let home = SportMonksTeam(id: 1, name: "India", code: "IND", imagePath: nil, countryId: nil, nationalTeam: true, updatedAt: nil)
    static let away = SportMonksTeam(id: 2, name: "Australia", code: "AUS", imagePath: nil, countryId: nil, nationalTeam: true, updatedAt: nil)

    /// Player ids: 101… India, 201… Australia.
    static func player(_ id: Int, _ first: String, _ last: String, team: Int) -> SportMonksPlayer {
        SportMonksPlayer(id: id, countryId: nil, firstname: first, lastname: last, fullname: "\(first) \(last)",
                         imagePath: nil, dateofbirth: nil, gender: "m", battingstyle: nil, bowlingstyle: nil,
                         position: nil, updatedAt: nil,
                         lineup: .init(teamId: team, captain: false, wicketkeeper: false, substitution: false))
    }

    static let players: [SportMonksPlayer] = [
        player(101, "Rohit", "Sharma", team: 1), player(102, "Shubman", "Gill", team: 1),
        player(103, "Virat", "Kohli", team: 1), player(104, "Jasprit", "Bumrah", team: 1),
        player(105, "Mohammed", "Siraj", team: 1),
        player(201, "David", "Warner", team: 2), player(202, "Travis", "Head", team: 2),
        player(203, "Steve", "Smith", team: 2), player(204, "Marnus", "Labuschagne", team: 2),
        player(205, "Glenn", "Maxwell", team: 2), player(206, "Mitchell", "Marsh", team: 2),
    ]

    enum Outcome {
        case runs(Int), four, six, wide(Int), noBall(bat: Int), legBye(Int)
        case out(String, fielder: Int? = nil)
    }

    static func score(_ outcome: Outcome) -> SportMonksScore {
        func make(_ name: String, runs: Int = 0, four: Bool = false, six: Bool = false, legBye: Int = 0, noball: Int = 0,
                  wicket: Bool = false, ball: Bool = true) -> SportMonksScore {
            SportMonksScore(id: name.unicodeScalars.reduce(0) { $0 + Int($1.value) }, name: name, runs: runs, four: four, six: six, bye: 0,
                            legBye: legBye, noball: noball, noballRuns: noball, isWicket: wicket, ball: ball, out: wicket)
        }
        switch outcome {
        case .runs(let n): return make(n == 0 ? "No Run" : "\(n) Runs", runs: n)
        case .four: return make("FOUR", runs: 4, four: true)
        case .six: return make("SIX", runs: 6, six: true)
        case .wide(let n): return make("\(n) Wide", runs: n, ball: false)
        case .noBall(let bat): return make("1 No Ball", runs: 1 + bat, noball: 1)
        case .legBye(let n): return make("\(n) Leg Bye", legBye: n)
        case .out(let name, _): return make(name, wicket: true)
        }
    }

    struct Spec {
        var bowler: Int
        var striker: Int
        var nonStriker: Int
        var outcome: Outcome
        var outBatter: Int?
    }

    /// Balls of innings `scoreboard` for `team` from specs; over/ball numbers follow legal deliveries.
    static func balls(_ specs: [Spec], scoreboard: String = "S1", team: Int = 2, firstId: Int = 1) -> [SportMonksBall] {
        var legal = 0
        return specs.enumerated().map { index, spec in
            let score = score(spec.outcome)
            let number = SportMonksOvers.number(over: legal / 6, ball: legal % 6 + 1)
            if score.isLegalDelivery { legal += 1 }
            var fielder: Int?
            if case .out(_, let f) = spec.outcome { fielder = f }
            return SportMonksBall(id: firstId + index, fixtureId: 9, teamId: team, ball: number, scoreboard: scoreboard,
                                  batsmanOneOnCreezeId: spec.striker, batsmanTwoOnCreezeId: spec.nonStriker,
                                  batsmanId: spec.striker, bowlerId: spec.bowler,
                                  batsmanoutId: score.isWicket ? (spec.outBatter ?? spec.striker) : nil,
                                  catchstumpId: fielder, runoutById: nil, scoreId: score.id, batsman: nil, bowler: nil,
                                  score: score, team: nil, updatedAt: nil)
        }
    }

    /// A T20 fixture with the given balls and status; `runs` rows derived from the balls.
    static func fixture(_ balls: [SportMonksBall], status: SportMonksStatus = .innings(1), note: String? = nil) -> SportMonksFixture {
        var f = SportMonksFixture(id: 9, status: status)
        f.localteamId = 1
        f.visitorteamId = 2
        f.localteam = home
        f.visitorteam = away
        f.type = "T20I"
        f.totalOversPlayed = 20
        f.round = "1st T20I"
        f.note = note
        f.lineup = players
        f.balls = balls
        f.runs = InningsScore.byScoreboard(balls).sorted { $0.key < $1.key }.map { board, total in
            SportMonksRun(id: InningsLedger.number(of: board), fixtureId: 9,
                          teamId: balls.first { $0.scoreboard == board }?.teamId ?? 0,
                          inning: InningsLedger.number(of: board), score: total.runs, wickets: total.wickets,
                          overs: total.overs, pp1: nil, pp2: nil, pp3: nil, updatedAt: nil)
        }
        return f
    }
}
