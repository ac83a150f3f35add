import Cricket

/// Builds SportMonks score-dictionary entries (`ball.score`) for Cricsheet deliveries.
///
/// Values follow the semantics validated against real replies: `runs` = everything except byes and
/// leg byes (bat runs + wides + no-ball runs + penalty runs), so `runs + bye + leg_bye` = the delivery total;
/// `ball` = faced by the batter (false only for wides; true on no-balls, as in the real reply);
/// `noball` = 1 on a no-ball, `noball_runs` = the no-ball extras. Names reuse SportMonks' wording
/// ("1 Run", "FOUR", "5 Wides", "1 No Ball + 1 Bye", "Catch Out", "1 Bye + Run Out", …), with every dismissal of
/// a delivery named in turn ("Catch Out + Timed Out"; `batsmanout_id` is the first that counts against the side,
/// the batting card's fall of wicket names the others); ids of names seen
/// in real data are SportMonks' own, other names get a stable id ≥ 1000.
public enum ScoreDictionary {
    /// Ids SportMonks uses for these names (from recorded replies and the /scores docs).
    public static let knownIds: [String: Int] = [
        "1 Bye": 1, "1 Bye + Retired Hurt": 2, "1 Bye + Run Out": 3, "1 Leg Bye": 4, "1 Leg Bye + Run Out": 5,
        "1 No Ball": 7, "1 Wide": 17, "4 Byes": 41, "FOUR": 47, "5 Wides": 52, "SIX": 53, "Catch Out": 54,
        "1 Run": 69, "2 Runs": 70, "3 Runs": 71, "Clean Bowled": 79, "No Run": 82, "Not Out": 84,
        "1 No Ball + 1 Bye": 114,
    ]

    /// Score id of the "not out" batting rows.
    public static let notOutId = 84

    /// The score entry of one delivery.
    public static func score(for delivery: CricsheetDelivery) -> SportMonksScore {
        let wides = delivery.wides, noballs = delivery.noballs
        let byes = delivery.extras?.byes ?? 0, legbyes = delivery.extras?.legbyes ?? 0
        let penalty = delivery.extras?.penalty ?? 0
        let bat = delivery.runs.batter
        let boundary = delivery.runs.nonBoundary != true && wides == 0
        let teamWicket = (delivery.wickets ?? []).first { CricketRules.isTeamWicket($0.kind) }

        var parts: [String] = []
        if wides > 0 {
            parts.append(wides == 1 ? "1 Wide" : "\(wides) Wides")
        } else if noballs > 0 {
            parts.append("\(noballs) No Ball")
            if bat > 0 { parts.append(plural(bat, "Run")) }
        } else if bat == 4 && boundary {
            parts.append("FOUR")
        } else if bat == 6 && boundary {
            parts.append("SIX")
        } else if bat > 0 {
            parts.append(plural(bat, "Run"))
        }
        if byes > 0 { parts.append(plural(byes, "Bye")) }
        if legbyes > 0 { parts.append(plural(legbyes, "Leg Bye")) }
        // Every dismissal of the delivery, in Cricsheet's order: "Catch Out + Timed Out" (two wickets on one ball).
        parts += (delivery.wickets ?? []).map(dismissalName)
        if penalty > 0 { parts.append("\(penalty) Penalty Runs") }
        let name = parts.isEmpty ? "No Run" : parts.joined(separator: " + ")

        return SportMonksScore(
            id: id(for: name), name: name, runs: bat + wides + noballs + penalty,
            four: bat == 4 && boundary, six: bat == 6 && boundary, bye: byes, legBye: legbyes,
            noball: noballs > 0 ? 1 : 0, noballRuns: noballs, isWicket: teamWicket != nil,
            ball: wides == 0, out: teamWicket != nil)
    }

    /// The dictionary name of a dismissal: "Catch Out", "Clean Bowled", "LBW OUT", "Run Out", …
    public static func dismissalName(_ wicket: CricsheetDelivery.Wicket) -> String {
        let substitute = wicket.fielders?.first?.substitute == true
        switch wicket.kind {
        case "caught": return substitute ? "Catch Out (Sub)" : "Catch Out"
        case "caught and bowled": return "Catch Out"
        case "bowled": return "Clean Bowled"
        case "lbw": return "LBW OUT"
        case "stumped": return "Stump Out"
        case "run out": return substitute ? "Run Out (Subs)" : "Run Out"
        case "hit wicket": return "Hit Wicket"
        case "retired out": return "Retired Out"
        case "retired hurt": return "Retired Hurt"
        case "retired not out": return "Retired Not Out"
        case "obstructing the field": return "Obstructing the field Out"
        case "handled the ball": return "Handled the Ball"
        case "hit the ball twice": return "Hit the Ball Twice"
        case "timed out": return "Timed Out"
        case "absent hurt": return "Absent Hurt"
        default: return wicket.kind.capitalized
        }
    }

    /// The id for a score name: SportMonks' own when known, else a stable id in 1000 ..< 10000.
    public static func id(for name: String) -> Int {
        knownIds[name] ?? 1_000 + StableIDs.hash("score:" + name) % 9_000
    }

    private static func plural(_ count: Int, _ unit: String) -> String {
        count == 1 ? "1 \(unit)" : "\(count) \(unit)s"
    }
}
