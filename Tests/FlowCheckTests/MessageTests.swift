import FlowCheck
import FlowDescriptor
import Foundation
import Testing

/// Lints inline flow text.
func lint(_ text: String, format: DocumentFormat = .yaml, file: String? = nil) -> [Diagnostic] {
    Linter().lint(bytes: Array(text.utf8), file: file ?? "inline.\(format.rawValue)", format: format).diagnostics
}

extension [Diagnostic] {
    /// The findings with this code.
    func with(_ code: DiagnosticCode) -> [Diagnostic] { filter { $0.code == code } }

    /// `FR300 18:20` for each finding, in source order: readable in a failure message.
    var summary: [String] {
        map { "\($0.code.rawValue) \($0.location.map { "\($0.line):\($0.column)" } ?? "-")" }
    }
}

/// The wording of findings and the fixes they offer: each message names its subject and its context, and a
/// likely typo comes with the replacement.
@Suite("Messages and fixes")
struct MessageTests {
    static let oauthFlow = """
        flowrun: 1
        name: oauth-onboarding
        application: {id: com.example.travel, version: "1.0"}
        configuration:
          providers: [managed]
          transform: discovery-service
        authentication: oauth2
        steps:
          welcome:  {uses: welcome}
          session:  {uses: session-configuration}
          auth:     {uses: oauth2-authentication}
          settings: {uses: settings-download}
          store:    {uses: store-manager}
        flows:
          onboard: [welcome, session, auth, settings, store]
          restore: [store, welcome, session, auth, settings]

        """

    @Test("The baseline flow the tests below break is clean")
    func baselineIsClean() {
        #expect(lint(Self.oauthFlow).isEmpty)
    }

    @Test("A condition on authenticationMethod with a value no configuration names is located at the value")
    func unknownAuthenticationMethodInCondition() throws {
        let text = Self.oauthFlow.replacingOccurrences(
            of: "onboard: [welcome, session, auth, settings, store]",
            with: """
                onboard:
                    - welcome
                    - session
                    - {step: auth, when: {info: authenticationMethod, in: [oauth2, oauth]}}
                    - settings
                    - store
                """)
        let diagnostics = lint(text)
        #expect(diagnostics.summary == ["FR203 18:68"])
        let finding = try #require(diagnostics.first)
        #expect(finding.message.contains("`authenticationMethod` with `oauth`"), "\(finding.message)")
        #expect(finding.hint?.contains("`oauth2-client-credentials`") == true, "\(finding.hint ?? "")")
        #expect(lint(text.replacingOccurrences(of: "[oauth2, oauth]", with: "[oauth2, none]")).isEmpty)
    }

    @Test("A misspelt step type offers the built-in as its replacement")
    func misspeltStep() throws {
        let text = Self.oauthFlow.replacingOccurrences(
            of: "uses: oauth2-authentication", with: "uses: oauth2-authentcation")
        let diagnostics = lint(text)
        #expect(diagnostics.summary == ["FR300 11:20"])
        let finding = try #require(diagnostics.first)
        #expect(finding.replacement == "oauth2-authentication")
        #expect(finding.message.contains("`auth`"), "names the step: \(finding.message)")
        #expect(finding.message.contains("`oauth2-authentcation`"), "names what was written: \(finding.message)")
        #expect(finding.message.contains("did you mean `oauth2-authentication`?"), "\(finding.message)")
        #expect(finding.severity == .error)
        #expect(finding.path?.description == "steps.auth.uses")
    }

    @Test("A misspelt SDK class name is corrected to the class name")
    func misspeltClassName() throws {
        let text = Self.oauthFlow.replacingOccurrences(
            of: "uses: oauth2-authentication", with: "uses: OAuth2AuthenticationStp")
        let finding = try #require(lint(text).with(.unknownStep).first)
        #expect(finding.replacement == "OAuth2AuthenticationStep")
    }

    @Test("A misspelt top-level field offers the field it is closest to")
    func misspeltField() throws {
        let text = Self.oauthFlow.replacingOccurrences(of: "authentication: oauth2", with: "authentcation: oauth2")
        let diagnostics = lint(text)
        #expect(diagnostics.summary == ["FR200 7:1"])
        let finding = try #require(diagnostics.first)
        #expect(finding.replacement == "authentication")
        #expect(
            finding.message.contains("`authentcation`") && finding.message.contains("did you mean `authentication`?"))
    }

    @Test("A flow naming a misspelt step offers the declared one")
    func misspeltFlowEntry() throws {
        let text = Self.oauthFlow.replacingOccurrences(
            of: "onboard: [welcome, session, auth, settings, store]",
            with: "onboard: [welcome, session, auth, setings, store]")
        let finding = try #require(lint(text).with(.undeclaredStep).first)
        #expect(finding.replacement == "settings")
        #expect(finding.message.contains("onboard flow") && finding.message.contains("`setings`"))
    }

    @Test("A missing key names the key, its type, the step and the flow; the hint says where the key comes from")
    func missingKey() throws {
        let text = Self.oauthFlow.replacingOccurrences(
            of: "onboard: [welcome, session, auth, settings, store]",
            with: "onboard: [auth, welcome, session, settings, store]")
        let diagnostics = lint(text).with(.missingKey)
        #expect(Set(diagnostics.summary) == ["FR500 15:13"])
        let oauth = try #require(diagnostics.first { $0.message.contains("`oauth2Parameters`") })
        #expect(oauth.message.contains("Step `auth`"), "\(oauth.message)")
        #expect(oauth.message.contains("oauth2-authentication"), "\(oauth.message)")
        #expect(oauth.message.contains("onboard flow"), "\(oauth.message)")
        #expect(oauth.message.contains("oauth2-parameters"), "names the type: \(oauth.message)")
        let hint = try #require(oauth.hint)
        #expect(hint.contains("`welcome`") && hint.contains("later"), "\(hint)")
        #expect(hint.contains("line 15"), "says where `welcome` runs: \(hint)")
        #expect(diagnostics.contains { $0.message.contains("`authenticationURL`") })
    }

    @Test("A key nothing provides: the hint names the transformer or leaf that would")
    func keyNothingProvides() throws {
        let text = Self.oauthFlow.replacingOccurrences(
            of: "transform: discovery-service",
            with:
                "transform:\n    backend: {to: settings-parameters, key: settingsParameters}\n    auth: {to: url, "
                + "key: authenticationURL}"
        )
        let diagnostics = lint(text)
        #expect(Set(diagnostics.summary) == ["FR500 17:31", "FR500 18:38"])
        let hint = try #require(diagnostics.first?.hint)
        #expect(hint.contains("{to: oauth2-parameters, key: oauth2Parameters}"), "\(hint)")
    }

    @Test(
        "A literal secret is reported without repeating it",
        arguments: [
            (
                "store:    {uses: store-manager}", "store:    {uses: store-manager, with: {passcode: \"739184\"}}",
                "739184"
            ),
            (
                "auth:     {uses: oauth2-authentication}",
                "auth:     {uses: oauth2-authentication, with: {client-secret: Zq8-sEcReT-Xy1}}", "Zq8-sEcReT-Xy1"
            ),
            (
                "settings: {uses: settings-download}",
                "settings: {uses: settings-download}\n  bind:     {uses: command, with: {run: [./bind.sh], "
                    + "env: {PASSWORD: hunter2}}}",
                "hunter2"
            ),
        ])
    func literalSecret(original: String, replacement: String, secret: String) throws {
        var text = Self.oauthFlow.replacingOccurrences(of: original, with: replacement)
        if secret == "hunter2" {
            text = text.replacingOccurrences(
                of: "onboard: [welcome, session, auth, settings, store]",
                with: "onboard: [welcome, session, auth, settings, bind, store]")
        }
        let diagnostics = lint(text)
        let finding = try #require(diagnostics.with(.literalSecret).first, "\(diagnostics.summary)")
        #expect(diagnostics.count == 1, "\(diagnostics.summary)")
        #expect(!finding.message.contains(secret), "\(finding.message)")
        #expect(!(finding.hint ?? "").contains(secret))
        #expect(!(finding.replacement ?? "").contains(secret))
        #expect(
            finding.message.contains("`passcode`") || finding.message.contains("`client-secret`")
                || finding.message.contains("`PASSWORD`"),
            "names the parameter: \(finding.message)")
        #expect(
            finding.hint?.contains("${env.NAME}") == true, "says how to pass a secret: \(finding.hint ?? "no hint")")
    }

    @Test("An http:// endpoint offers the https:// URL as its replacement")
    func insecureEndpoint() throws {
        let text = Self.oauthFlow.replacingOccurrences(
            of: "providers: [managed]",
            with: "providers: [{discovery-service: {host: http://discovery.example.com/v1}}]")
        let finding = try #require(lint(text).with(.insecureEndpoint).first)
        #expect(finding.replacement == "https://discovery.example.com/v1")
        #expect(finding.message.contains("http://discovery.example.com/v1"))
        #expect(finding.hint?.contains("allow-insecure-http") == true)
    }

    @Test("An unbounded backward jump suggests a limit")
    func unboundedGoto() throws {
        let text = Self.oauthFlow.replacingOccurrences(
            of: "onboard: [welcome, session, auth, settings, store]",
            with:
                "onboard:\n    - welcome\n    - session\n    - auth\n    - {step: settings, "
                + "on-failure: auth}\n    - store"
        )
        let finding = try #require(lint(text).with(.endlessCycle).first)
        #expect(finding.message.contains("`auth`"))
        #expect(finding.hint?.contains("limit") == true, "\(finding.hint ?? "no hint")")
    }

    @Test("An unsupported format version offers the supported one")
    func formatVersion() throws {
        let finding = try #require(
            lint(Self.oauthFlow.replacingOccurrences(of: "flowrun: 1", with: "flowrun: 3")).first)
        #expect(finding.code == .unsupportedVersion)
        #expect(finding.replacement == "1")
        #expect(finding.message.contains("3") && finding.message.contains("1"))
    }

    @Test("`yes` for a boolean explains the YAML 1.1 trap")
    func yamlOneOneBoolean() throws {
        let text = Self.oauthFlow.replacingOccurrences(
            of: "authentication: oauth2", with: "authentication: oauth2\nsecurity: {allow-insecure-http: yes}")
        let finding = try #require(lint(text).with(.wrongType).first)
        #expect(
            finding.message.contains("`allow-insecure-http`") && finding.message.contains("`yes`"), "\(finding.message)"
        )
        #expect(finding.hint?.contains("true") == true)
    }

    @Test("A timeout without a unit offers one")
    func durationWithoutUnit() throws {
        let text = Self.oauthFlow.replacingOccurrences(
            of: "onboard: [welcome, session, auth, settings, store]",
            with: "onboard: [welcome, session, auth, {step: settings, timeout: 45}, store]")
        let finding = try #require(lint(text).with(.wrongType).first)
        #expect(finding.replacement == "45s")
    }

    /// The same flow with the same mistakes, written once in YAML and once in JSON.
    static let brokenYAML = """
        flowrun: 1
        name: oauth-onboarding
        application: {id: com.example.travel, version: "1.0"}
        configuration:
          providers: [managd, {url: {}}]
          transform: discovery-service
        authentication: saml
        steps:
          welcome:  {uses: welcome}
          session:  {uses: session-configuration}
          auth:     {uses: oauth2-authentcation, with: {presenter: browser}}
          settings: {uses: settings-download, with: {levl: user}}
          store:    {uses: store-manager, with: {passcode: "1234"}}
          spare:    {uses: store-manager}
        flows:
          onboard:
            - welcome
            - step: session
              retry: {attempts: "3"}
            - auth
            - {step: settings, on-failure: session}
            - store
          restore: [welcome, store, sesion]
          reset: []

        """

    static let brokenJSON = """
        {
          "flowrun": 1,
          "name": "oauth-onboarding",
          "application": {"id": "com.example.travel", "version": "1.0"},
          "configuration": {
            "providers": ["managd", {"url": {}}],
            "transform": "discovery-service"
          },
          "authentication": "saml",
          "steps": {
            "welcome": {"uses": "welcome"},
            "session": {"uses": "session-configuration"},
            "auth": {"uses": "oauth2-authentcation", "with": {"presenter": "browser"}},
            "settings": {"uses": "settings-download", "with": {"levl": "user"}},
            "store": {"uses": "store-manager", "with": {"passcode": "1234"}},
            "spare": {"uses": "store-manager"}
          },
          "flows": {
            "onboard": [
              "welcome",
              {"step": "session", "retry": {"attempts": "3"}},
              "auth",
              {"step": "settings", "on-failure": "session"},
              "store"
            ],
            "restore": ["welcome", "store", "sesion"],
            "reset": []
          }
        }
        """

    @Test("A JSON flow gives the same findings as the same YAML flow")
    func jsonMatchesYAML() {
        let yaml = lint(Self.brokenYAML, format: .yaml)
        let json = lint(Self.brokenJSON, format: .json)
        #expect(yaml.count >= 10, "the flow has many mistakes: \(yaml.summary)")
        #expect(yaml.map(\.code.rawValue).sorted() == json.map(\.code.rawValue).sorted())
        // Format-blind down to the descriptor path and the wording.
        func facts(_ diagnostics: [Diagnostic]) -> [String] {
            diagnostics.map { "\($0.code.rawValue) \($0.path?.description ?? "-") \($0.message)" }.sorted()
        }
        #expect(facts(yaml) == facts(json))
    }

    @Test(
        "Every finding over the corpus reads as one sentence and has the severity of its code",
        arguments: Corpus.files)
    func oneSentence(_ name: String) throws {
        let expectation = try Corpus.expectation(for: name)
        let report = try #require(Linter(limits: expectation.limits).lint(path: Corpus.url(name).path))
        for diagnostic in report.diagnostics {
            let message = diagnostic.message
            #expect(!message.isEmpty && !message.contains("\n"), "\(diagnostic.code): \(message)")
            #expect(message.hasSuffix(".") || message.hasSuffix("?"), "\(diagnostic.code): \(message)")
            #expect(message.first.map { $0.isUppercase || $0 == "`" } == true, "\(diagnostic.code): \(message)")
            #expect(
                diagnostic.severity == diagnostic.code.defaultSeverity, "\(diagnostic.code): \(diagnostic.severity)")
            #expect(diagnostic.location?.file == Corpus.url(name).path)
            if let hint = diagnostic.hint {
                #expect(hint.hasSuffix("."), "\(diagnostic.code) hint: \(hint)")
            }
            if let replacement = diagnostic.replacement {
                #expect(!replacement.isEmpty)
            }
        }
    }
}
