import FlowEngine
import FlowTransform

/// What the downloaded log settings allow the run: the log level and whether the log may be uploaded. The one
/// place the run's log level is set from the settings: `settings-download` applies it as soon as the settings
/// arrive (so the rest of the run logs at the backend's level), and `apply-settings` applies it again (from kept
/// settings too) and provides it as `logPolicy`.
struct RunLogPolicy: Equatable {
    /// The level the run logs at: the settings' level, or none when logging is off.
    var level: RunLog.Level
    /// Whether the log may be uploaded: logging is on and its level is not NONE.
    var upload: Bool

    /// The policy of `settings`; `nil` when they name no level flowrun knows.
    init?(_ settings: LogSettings) {
        guard let name = settings.text("level"), let level = RunLog.Level(backendName: name) else { return nil }
        let enabled = settings["enabled"] != .bool(false)
        self.level = enabled ? level : .none
        upload = enabled && level != .none
    }

    /// The `logPolicy` value.
    var record: LogPolicy {
        LogPolicy(["level": .string(level.name), "upload": .bool(upload)])
    }

    /// Sets the run's log level, and says so in the trace (`log-level`) and the log.
    func apply(_ context: StepContext) {
        context.log.setLevel(level)
        context.note("log-level", "log level set to \(level.name) by the downloaded log settings")
        context.log.write(.info, "settings: log level \(level.name)")
    }
}
