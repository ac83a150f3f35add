import Contracts
import Cricket

/// Targets: computed from the innings totals, overridden by SportMonks' D/L data, `rpc_*` or the note.
extension MatchAnalysis {
    /// A revised allocation for chase innings `number`: D/L data of the chasing side, then `rpc_target`/`rpc_overs`.
    func revisedAllocation(_ number: Int) -> (runs: Int?, balls: Int)? {
        guard format.scheduledOvers != nil, !format.isSuperOver(number) else { return nil }
        func balls(_ overs: Double) -> Int { SportMonksOvers.legalBalls(fromOvers: overs, ballsPerOver: format.ballsPerOver) }
        let team = battingTeam(number)
        let data = team == fixture.localteamId ? fixture.localteamDlData
            : team == fixture.visitorteamId ? fixture.visitorteamDlData : nil
        if let data, let overs = data.overs, overs > 0 {
            return (data.score, balls(overs))
        }
        if let overs = fixture.rpcOvers?.numberValue, overs > 0 {
            return (fixture.rpcTarget?.numberValue.map { Int($0) }, balls(overs))
        }
        if noteConcerns(number), let parsed = Self.parseTargetNote(fixture.note), let overs = parsed.overs {
            return (parsed.runs, balls(overs))
        }
        return nil
    }

    /// The target of innings `number` when it is a chase whose target is known (the innings before it is over).
    public func target(for number: Int) -> ChaseTarget? {
        guard number > 1, format.isChase(number), isCompleteBefore(number) else { return nil }
        let scoreboard = "S\(number)"
        if format.isSuperOver(number) {
            return ChaseTarget(scoreboard: scoreboard, runs: totals(number - 1).runs + 1, maxBalls: format.ballsPerOver,
                               revised: false)
        }
        if let scheduledBalls = format.scheduledBalls {
            let computed = totals(number - 1).runs + 1
            if let revised = revisedAllocation(number) {
                let runs = revised.runs ?? computed
                return ChaseTarget(scoreboard: scoreboard, runs: runs, maxBalls: revised.balls,
                                   revised: revised.balls != scheduledBalls || runs != computed)
            }
            let noted = noteConcerns(number) ? Self.parseTargetNote(fixture.note)?.runs : nil
            let runs = noted ?? computed
            return ChaseTarget(scoreboard: scoreboard, runs: runs, maxBalls: scheduledBalls, revised: runs != computed)
        }
        guard let team = battingTeam(number) else { return nil }
        var own = 0, opponents = 0
        for earlier in 1..<number {
            let runs = totals(earlier).runs
            if battingTeam(earlier) == team { own += runs } else { opponents += runs }
        }
        return ChaseTarget(scoreboard: scoreboard, runs: opponents - own + 1, maxBalls: nil, revised: false)
    }

    /// The chase whose target is known now: the current innings, or the next one during a break.
    public var activeTarget: ChaseTarget? {
        guard let current else { return nil }
        if let target = target(for: current.number) { return target }
        if isComplete(current.number) { return target(for: current.number + 1) }
        return nil
    }

    /// True when every innings before `number` is over (so the chase's target is fixed).
    func isCompleteBefore(_ number: Int) -> Bool {
        guard let previous = ledger(number - 1) ?? (fixture.runs?.contains { $0.inning == number - 1 } == true
            ? InningsLedger(scoreboard: "S\(number - 1)", number: number - 1, teamId: 0) : nil) else { return false }
        if ledger(number) != nil { return true }
        return isComplete(previous.number)
    }

    /// The note speaks of the current chase (or the next one in a break), never of an innings long gone.
    func noteConcerns(_ number: Int) -> Bool {
        guard let current else { return true }
        return current.number == number || current.number == number - 1
    }

    /// Parses SportMonks' note "Target 183 runs" or "Target 302 runs from 40 overs".
    static func parseTargetNote(_ note: String?) -> (runs: Int, overs: Double?)? {
        guard let note, note.hasPrefix("Target ") else { return nil }
        let words = note.split(separator: " ")
        guard words.count >= 2, let runs = Int(words[1]) else { return nil }
        if let from = words.firstIndex(of: "from"), from + 1 < words.count, let overs = Double(words[from + 1]) {
            return (runs, overs)
        }
        return (runs, nil)
    }
}
