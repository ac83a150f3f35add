/// The one way a push token (or a broadcast channel id) is shown to people: its last 8 characters after an ellipsis
/// ("…9f3a1c0d"). Enough to tell a device's tokens apart when a user reinstalls, never enough to push to. The delivery
/// record stores only this form; logs, the admin API, the CLI and the support page show only this form.
public enum TokenMask {
    /// Characters kept at the end.
    public static let kept = 8

    /// The masked form of `token` ("" stays "", a token of 8 or fewer characters is fully hidden as "…").
    public static func mask(_ token: String) -> String {
        guard !token.isEmpty else { return "" }
        let utf8 = token.utf8
        guard utf8.count > kept else { return "…" }
        return "…" + String(decoding: utf8.suffix(kept), as: UTF8.self)
    }
}
