import FlowCheck
import FlowDescriptor
import Foundation
import Testing

/// The checks of step groups, and the other checks as they meet a group's entries: each finding about an entry
/// points at its line in the group, and a mode-dependent one says through which use the mode reached it.
@Suite("Step groups in lint")
struct StepGroupCheckTests {
    /// Lines: `groups` 14, `sign-in` 15 (entries on 16 and 17), `onboard` 19, `restore` 20.
    static let flow = """
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
        groups:
          sign-in:
            - session
            - auth
        flows:
          onboard: [welcome, {group: sign-in}, settings, store]
          restore: [store, welcome, {group: sign-in}, settings]

        """

    @Test func theBaselineWithAGroupIsClean() {
        #expect(lint(Self.flow).isEmpty, "\(lint(Self.flow).map(\.message))")
    }

    @Test func aMissingKeyIsFoundAtTheGroupsEntryInTheModeWhereItIsMissingAndNamesTheUse() throws {
        let text = Self.flow.replacing(
            "restore: [store, welcome, {group: sign-in}, settings]",
            with: "restore: [store, {group: sign-in}, welcome, settings]")
        let findings = lint(text).with(.missingKey)
        #expect(findings.summary == ["FR500 16:7", "FR500 17:7", "FR500 17:7"], "\(findings.map(\.message))")
        for finding in findings {
            #expect(finding.message.contains("in the restore flow, reached through group `sign-in` (used at line 20)"))
            #expect(finding.path?.description.hasPrefix("groups.sign-in[") == true)
        }
    }

    @Test func aKeyUnknownInAGroupsConditionIsReportedOnceThoughTwoModesUseIt() throws {
        let text = Self.flow.replacing(
            "    - auth\n", with: "    - {step: auth, when: {info: authenticationMetod, exists: true}}\n")
        let findings = lint(text).with(.unknownKey)
        #expect(findings.summary == ["FR305 17:33"], "\(findings.map(\.message))")
        #expect(findings.first?.replacement == "authenticationMethod")
    }

    @Test func anUndeclaredStepInAGroupIsOneFindingNamingTheGroup() throws {
        let text = Self.flow.replacing("    - auth\n", with: "    - auht\n")
        let findings = lint(text).with(.undeclaredStep)
        #expect(findings.summary == ["FR303 17:7"])
        #expect(findings.first?.message.hasPrefix("Group `sign-in` runs step `auht`") == true)
        #expect(findings.first?.replacement == "auth")
    }

    @Test func anUnusedGroupsEntriesAreStillChecked() throws {
        let text = Self.flow.replacing("    - auth\n", with: "    - auth\n  spare: [nosuch]\n")
        #expect(lint(text).summary == ["FR411 18:3", "FR303 18:11"], "\(lint(text).map(\.message))")
    }

    @Test func aMisspeltGroupComesWithTheFix() throws {
        let text = Self.flow.replacing("{group: sign-in}, settings, store]", with: "{group: signin}, settings, store]")
        let finding = try #require(lint(text).with(.unknownGroup).first)
        #expect(finding.replacement == "sign-in")
        #expect(finding.message.hasPrefix("The onboard flow uses group `signin`"))
        #expect(finding.path?.description == "flows.onboard[1].group")
    }

    @Test func aGroupNameRunAsAStepIsNotAlsoAnUndeclaredStep() throws {
        let text = Self.flow.replacing("{group: sign-in}, settings, store]", with: "sign-in, settings, store]")
        let findings = lint(text)
        #expect(findings.with(.groupStepConfusion).summary == ["FR414 19:22"])
        #expect(findings.with(.undeclaredStep).isEmpty)
        #expect(findings.with(.groupStepConfusion).first?.message.contains("is a group, not a declared step") == true)
    }

    @Test func aCycleIsNamedFromTheGroupThatClosesItAndReportedOnce() throws {
        let text = Self.flow.replacing(
            "    - auth\n",
            with: "    - auth\n    - group: more\n  more:\n    - group: last\n  last: [{group: sign-in}]\n")
        let findings = lint(text).with(.groupCycle)
        #expect(findings.count == 1, "\(findings.map(\.message))")
        #expect(
            findings.first?.message
                == "Group `last` uses group `sign-in`, which leads back to it: "
                + "`last` → `sign-in` → `more` → `last`; its entries would never end.")
        #expect(findings.first?.location?.line == 21)
    }

    @Test func groupsThatDoubleAtEachLevelStopAtTheLimitWithOneFinding() throws {
        var groups = "  g0: [session]\n"
        for level in 1...20 { groups += "  g\(level): [{group: g\(level - 1)}, {group: g\(level - 1)}]\n" }
        let text = Self.flow.replacing("  sign-in:\n    - session\n    - auth\n", with: groups + "  sign-in: [auth]\n")
            .replacing("onboard: [welcome,", with: "onboard: [welcome, {group: g20},")
        let started = ContinuousClock.now
        let findings = lint(text)
        #expect(ContinuousClock.now - started < .seconds(60), "a guard, not a measurement")
        let limit = try #require(findings.with(.invalidValue).first)
        #expect(limit.message.contains("more than 10000 steps"))
        #expect(findings.with(.invalidValue).count == 1)
    }

    @Test func groupsNestedPastTheLimitAreOneFindingAndNoCrash() throws {
        var groups = "  n0: [auth]\n"
        for level in 1...40 { groups += "  n\(level): [{group: n\(level - 1)}]\n" }
        let text = Self.flow.replacing("    - auth\n", with: "    - {group: n40}\n" + groups)
        let findings = lint(text)
        let deep = findings.with(.invalidValue)
        #expect(deep.count == 1, "\(findings.map(\.message))")
        #expect(deep.first?.message.contains("used more than 32 groups deep") == true)
        #expect(findings.with(.groupCycle).isEmpty)
        #expect(findings.with(.unusedGroup).isEmpty, "the groups past the limit are too deep, not unused")
    }

    @Test func aJumpToAStepFromAGroupIsLookedUpInTheExpandedMode() throws {
        let text = Self.flow.replacing(
            "onboard: [welcome, {group: sign-in}, settings, store]",
            with: "onboard: [welcome, {group: sign-in}, {step: settings, on-failure: {goto: auth, limit: 1}}, store]")
        #expect(lint(text).isEmpty, "\(lint(text).map(\.message))")
        let back = Self.flow.replacing(
            "onboard: [welcome, {group: sign-in}, settings, store]",
            with: "onboard: [welcome, {group: sign-in}, {step: settings, on-failure: {goto: auth}}, store]")
        #expect(lint(back).with(.endlessCycle).count == 1)
    }
}
