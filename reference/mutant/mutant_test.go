package mutant

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// switches is every mutant switch of the package by name, as this build sees it.
var switches = map[string]bool{
	"ReverseStopOrder":               ReverseStopOrder,
	"ExitPolicyIgnored":              ExitPolicyIgnored,
	"AfterStopDefersEarly":           AfterStopDefersEarly,
	"DeferOnForcedStop":              DeferOnForcedStop,
	"BudgetOverrun":                  BudgetOverrun,
	"ParallelInit":                   ParallelInit,
	"SidecarCounted":                 SidecarCounted,
	"StaleRootfs":                    StaleRootfs,
	"NoBackoff":                      NoBackoff,
	"SignalAsExitCode":               SignalAsExitCode,
	"NoStopSignal":                   NoStopSignal,
	"SidecarsForward":                SidecarsForward,
	"PreStopNotAwaited":              PreStopNotAwaited,
	"DeadlineLate":                   DeadlineLate,
	"SidecarNotRestarted":            SidecarNotRestarted,
	"NotifyTerminating":              NotifyTerminating,
	"DeferLateRetry":                 DeferLateRetry,
	"ExecGroupOnlyKill":              ExecGroupOnlyKill,
	"BackoffUncapped":                BackoffUncapped,
	"SidecarNotRestartedInStop":      SidecarNotRestartedInStop,
	"BackoffNeverReset":              BackoffNeverReset,
	"LastStateNotKept":               LastStateNotKept,
	"WaitingReasonCrashLoop":         WaitingReasonCrashLoop,
	"UIDWithoutDashes":               UIDWithoutDashes,
	"StopSignalTwice":                StopSignalTwice,
	"MainRestartedInStop":            MainRestartedInStop,
	"SignalNumberAsPodExitCode":      SignalNumberAsPodExitCode,
	"StopRequestExtendsBudget":       StopRequestExtendsBudget,
	"TerminatingStaysTrue":           TerminatingStaysTrue,
	"ReasonRecomputedAtFinish":       ReasonRecomputedAtFinish,
	"ReadOnlyIgnored":                ReadOnlyIgnored,
	"ReadOnlyTopOnly":                ReadOnlyTopOnly,
	"StartAfterStop":                 StartAfterStop,
	"NewPrivilegesAllowed":           NewPrivilegesAllowed,
	"DecidedByLastFailure":           DecidedByLastFailure,
	"TerminationReasonLowercase":     TerminationReasonLowercase,
	"MaskedPathsMissing":             MaskedPathsMissing,
	"UndecidedFailureExitZero":       UndecidedFailureExitZero,
	"ReadonlyPathsMissing":           ReadonlyPathsMissing,
	"ExtraCapability":                ExtraCapability,
	"SeccompRuntimeToolsProfile":     SeccompRuntimeToolsProfile,
	"SeccompEPERMDefault":            SeccompEPERMDefault,
	"RuncCapabilities":               RuncCapabilities,
	"DeadlineOverridesStopReason":    DeadlineOverridesStopReason,
	"MemoryEmptyDirOnDisk":           MemoryEmptyDirOnDisk,
	"RunningOnFirstContainer":        RunningOnFirstContainer,
	"StoppedKillCountsFailure":       StoppedKillCountsFailure,
	"CoreDumpNotReported":            CoreDumpNotReported,
	"GraceZeroGraceful":              GraceZeroGraceful,
	"ForcedReasonStopped":            ForcedReasonStopped,
	"OnFailureRestartsSuccess":       OnFailureRestartsSuccess,
	"ContainerPolicyIgnored":         ContainerPolicyIgnored,
	"CancelledRestartStaysWaiting":   CancelledRestartStaysWaiting,
	"NeverStartedMainWaiting":        NeverStartedMainWaiting,
	"DependencyFailedExitCode":       DependencyFailedExitCode,
	"SucceededDecidedByEmpty":        SucceededDecidedByEmpty,
	"StoppedReasonCompleted":         StoppedReasonCompleted,
	"ResultSetAtStop":                ResultSetAtStop,
	"StartedAtFirstMain":             StartedAtFirstMain,
	"FinishedAtStopBegin":            FinishedAtStopBegin,
	"DeferAbortContinues":            DeferAbortContinues,
	"DeferContinueAborts":            DeferContinueAborts,
	"DeferSkipOutweighsFailure":      DeferSkipOutweighsFailure,
	"DeferStartsAfterLimit":          DeferStartsAfterLimit,
	"DeferTimeoutAsSignaled":         DeferTimeoutAsSignaled,
	"DeferNoRetry":                   DeferNoRetry,
	"DeferFailureFailsPod":           DeferFailureFailsPod,
	"DefersOnlyOnStopRequest":        DefersOnlyOnStopRequest,
	"BeforeStopDefersWithPreStop":    BeforeStopDefersWithPreStop,
	"DefersInParallel":               DefersInParallel,
	"ReservePointIgnored":            ReservePointIgnored,
	"SidecarRunningNotStarted":       SidecarRunningNotStarted,
	"SidecarsNotAwaited":             SidecarsNotAwaited,
	"ReadyDependencyAsStarted":       ReadyDependencyAsStarted,
	"PreStopHooksSerial":             PreStopHooksSerial,
	"StopSignalAwaitsEveryPreStop":   StopSignalAwaitsEveryPreStop,
	"MainsStartInOrder":              MainsStartInOrder,
	"ExecWithoutContainerEnv":        ExecWithoutContainerEnv,
	"HostResolvConf":                 HostResolvConf,
	"PostStartBeforeStart":           PostStartBeforeStart,
	"PolicyFiredRepeated":            PolicyFiredRepeated,
	"TerminationReasonFromLastExit":  TerminationReasonFromLastExit,
	"NotifyParallelismExceeded":      NotifyParallelismExceeded,
	"FailuresCapExceeded":            FailuresCapExceeded,
	"TargetsWithoutNotFound":         TargetsWithoutNotFound,
	"RemovedTargetNotFound":          RemovedTargetNotFound,
	"NotFoundNamesDropped":           NotFoundNamesDropped,
	"InstanceEndAlwaysRestarted":     InstanceEndAlwaysRestarted,
	"UnstartedEligible":              UnstartedEligible,
	"FirstDeclaringOnly":             FirstDeclaringOnly,
	"HandlerExitCodeDropped":         HandlerExitCodeDropped,
	"NoMatchingNotEligible":          NoMatchingNotEligible,
	"RecordPhaseSucceededWins":       RecordPhaseSucceededWins,
	"PostStartFailureReasonError":    PostStartFailureReasonError,
	"StartupThresholdOneShort":       StartupThresholdOneShort,
	"ReadinessThresholdOneLate":      ReadinessThresholdOneLate,
	"LivenessKillWithoutStopSignal":  LivenessKillWithoutStopSignal,
	"PreStopOnProbeKill":             PreStopOnProbeKill,
	"SleepHookNotWaited":             SleepHookNotWaited,
	"UpdateWhileTerminating":         UpdateWhileTerminating,
	"UpdateSignalsDuringStop":        UpdateSignalsDuringStop,
	"ResumedUpdateCountsOldInstance": ResumedUpdateCountsOldInstance,
	"NoopUpdateBumpsGeneration":      NoopUpdateBumpsGeneration,
	"GraceUpdateIgnored":             GraceUpdateIgnored,
	"ObservedAtAccept":               ObservedAtAccept,
	"SharedRecreatedEmpty":           SharedRecreatedEmpty,
	"SharedDeletedWhileUsed":         SharedDeletedWhileUsed,
	"SharedRetainDeleted":            SharedRetainDeleted,
	"SharedDeleteKept":               SharedDeleteKept,
	"RmRunningForced":                RmRunningForced,
	"RmForceGraceful":                RmForceGraceful,
	"GCAgeFromStart":                 GCAgeFromStart,
	"SkippedNotificationSucceeds":    SkippedNotificationSucceeds,
	"AllPodsFinalPhase":              AllPodsFinalPhase,
	"RunningNotPersisted":            RunningNotPersisted,
	"LostDeliveryRerun":              LostDeliveryRerun,
	"EarlierDeliveryIgnored":         EarlierDeliveryIgnored,
	"DeliveriesSerialPerPod":         DeliveriesSerialPerPod,
	"FailedDeliveryRepeated":         FailedDeliveryRepeated,
	"UndeclaredRunsFirstNotifier":    UndeclaredRunsFirstNotifier,
	"AtCreationNotAwaited":           AtCreationNotAwaited,
	"ResultsCapped":                  ResultsCapped,
	"SelectorAnyLabel":               SelectorAnyLabel,
	"TurnsByName":                    TurnsByName,
	"ProbePeriodFromEnd":             ProbePeriodFromEnd,
	"SignalActionDropped":            SignalActionDropped,
	"InitAlwaysAsNever":              InitAlwaysAsNever,
	"DependencyFailedNotPropagated":  DependencyFailedNotPropagated,
	"TimedOutProbeSucceeds":          TimedOutProbeSucceeds,
	"GCRemovesRunning":               GCRemovesRunning,
	"DeletedEarlierNotAwaited":       DeletedEarlierNotAwaited,
	"DeferStatusUnpersisted":         DeferStatusUnpersisted,
	"UnsetRestartPolicyOnFailure":    UnsetRestartPolicyOnFailure,
	"CreatedAtGenerationZero":        CreatedAtGenerationZero,
	"EmptyDirNotEmpty":               EmptyDirNotEmpty,
	"EmptyDirClearedOnRestart":       EmptyDirClearedOnRestart,
	"HostPathChmod":                  HostPathChmod,
	"HostPathCheckedLate":            HostPathCheckedLate,
	"ResizeRestarts":                 ResizeRestarts,
	"RestartResizeInPlace":           RestartResizeInPlace,
	"DeadlineUpdateFromNow":          DeadlineUpdateFromNow,
	"UpdateKillsAtOnce":              UpdateKillsAtOnce,
	"AllFiresOnFailure":              AllFiresOnFailure,
	"AnyFailureFiresOnAnyExit":       AnyFailureFiresOnAnyExit,
	"PolicyListOrder":                PolicyListOrder,
	"InitializedIgnoresSidecars":     InitializedIgnoresSidecars,
	"SignalNotFailure":               SignalNotFailure,
	"ForcedSucceeds":                 ForcedSucceeds,
	"ExitCodeWithSignal":             ExitCodeWithSignal,
	"RestartCountCountsFirst":        RestartCountCountsFirst,
	"RestartSignalsOthers":           RestartSignalsOthers,
	"SidecarsKilled":                 SidecarsKilled,
	"ShorterGraceFromFirstRequest":   ShorterGraceFromFirstRequest,
	"StopTerminalConflict":           StopTerminalConflict,
	"ForceIgnoredWhileStopping":      ForceIgnoredWhileStopping,
	"InitFailureCompleted":           InitFailureCompleted,
	"InitRerunOnRestart":             InitRerunOnRestart,
	"RestartedExitCounted":           RestartedExitCounted,
	"StopSignalPolled":               StopSignalPolled,
	"SidecarsWithMains":              SidecarsWithMains,
	"ForcedKillAwaitsHook":           ForcedKillAwaitsHook,
	"ReadinessBeforeStarted":         ReadinessBeforeStarted,
	"StartupWithPostStart":           StartupWithPostStart,
	"StartedBeforeStartupProbe":      StartedBeforeStartupProbe,
	"ReadyAtStarted":                 ReadyAtStarted,
	"ReadyAfterExit":                 ReadyAfterExit,
	"RestartWaitsForDependencies":    RestartWaitsForDependencies,
	"ReplacedExitCounted":            ReplacedExitCounted,
	"UpdateRestartsExited":           UpdateRestartsExited,
	"SidecarExitsBatched":            SidecarExitsBatched,
	"EndedDefersRerun":               EndedDefersRerun,
	"LostDeferAttemptFailed":         LostDeferAttemptFailed,
	"DeferWithoutVolumes":            DeferWithoutVolumes,
	"WaitingChangeDeferred":          WaitingChangeDeferred,
	"ProbeTimeoutNotKilled":          ProbeTimeoutNotKilled,
	"RmIgnoresReaders":               RmIgnoresReaders,
	"StateWorldReadable":             StateWorldReadable,
	"KilledRunHoldsName":             KilledRunHoldsName,
	"StateWrittenInPlace":            StateWrittenInPlace,
	"FailedEventsDropped":            FailedEventsDropped,
	"OOMFromSigkill":                 OOMFromSigkill,
	"OOMOnlyMainSigkill":             OOMOnlyMainSigkill,
	"NoDefaultPidsLimit":             NoDefaultPidsLimit,
	"UnpackUmaskApplied":             UnpackUmaskApplied,
	"RegWrittenThroughLink":          RegWrittenThroughLink,
	"RelativeImageFromCwd":           RelativeImageFromCwd,
	"UpdatePathsRelative":            UpdatePathsRelative,
	"RestartEventsNewUID":            RestartEventsNewUID,
	"PreviousLogDeleted":             PreviousLogDeleted,
	"LogUnbounded":                   LogUnbounded,
	"SizeLimitIgnored":               SizeLimitIgnored,
	"StateRootOwnerUnchecked":        StateRootOwnerUnchecked,
	"StateDirsWritable":              StateDirsWritable,
	"RunAsUserIgnored":               RunAsUserIgnored,
	"RunAsNonRootIgnored":            RunAsNonRootIgnored,
	"ReadOnlyRootfsIgnored":          ReadOnlyRootfsIgnored,
	"CapabilityChangesIgnored":       CapabilityChangesIgnored,
	"PodCgroupLeft":                  PodCgroupLeft,
	"UpdateRestartsUnchanged":        UpdateRestartsUnchanged,
	"UntaggedTakesFirst":             UntaggedTakesFirst,
	"ValidNameUnanchored":            ValidNameUnanchored,
	"DeferSignalSucceeds":            DeferSignalSucceeds,
	"DeferRerunAfterSuccess":         DeferRerunAfterSuccess,
	"ImagesResolvedLazily":           ImagesResolvedLazily,
	"LostExitAsZero":                 LostExitAsZero,
	"AdoptedBackoffRestarted":        AdoptedBackoffRestarted,
	"AdoptionRerunsCompletedInit":    AdoptionRerunsCompletedInit,
	"ResumedStopSkipsStep":           ResumedStopSkipsStep,
	"AdoptionRecreatesInstances":     AdoptionRecreatesInstances,
	"TerminalBeforeKill":             TerminalBeforeKill,
	"RestartsNeedCreator":            RestartsNeedCreator,
	"StopSkipsAdoption":              StopSkipsAdoption,
	"ImageErrorUnnamed":              ImageErrorUnnamed,
	"SigkillStopSignalAccepted":      SigkillStopSignalAccepted,
	"UIDFixedSeed":                   UIDFixedSeed,
	"RunReplacesTerminal":            RunReplacesTerminal,
	"GCDefaultRetention":             GCDefaultRetention,
	"StopMissingPodSucceeds":         StopMissingPodSucceeds,
	"ImageResolvedAtStart":           ImageResolvedAtStart,
	"UserGroupIgnored":               UserGroupIgnored,
	"UnknownUserAsRoot":              UnknownUserAsRoot,
	"HostNetwork":                    HostNetwork,
	"UTSPerContainer":                UTSPerContainer,
	"MemoryLimitDecimal":             MemoryLimitDecimal,
	"ArgsReplaceEntrypoint":          ArgsReplaceEntrypoint,
	"DeletionInterruptsDelivery":     DeletionInterruptsDelivery,
	"AllPodsSkipsLaterPods":          AllPodsSkipsLaterPods,
	"DeletedNotificationDelivered":   DeletedNotificationDelivered,
	"LaterPodsRedecided":             LaterPodsRedecided,
	"LayerDigestUnchecked":           LayerDigestUnchecked,
	"CompletedFromFirstExit":         CompletedFromFirstExit,
	"ProbeKillCompleted":             ProbeKillCompleted,
	"RestartAtStopSignal":            RestartAtStopSignal,
}

func TestDefaultBuildHasEveryMutantOff(t *testing.T) {
	for name, on := range switches {
		if on {
			t.Errorf("%s is on in a build without mutant tags", name)
		}
	}
}

// declared reads the constants the files matching pattern declare and the build tag of each.
func declared(t *testing.T, pattern string) map[string]string {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	fset := token.NewFileSet()
	for _, f := range files {
		af, err := parser.ParseFile(fset, f, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		tag := ""
		for _, cg := range af.Comments {
			for _, c := range cg.List {
				if rest, ok := strings.CutPrefix(c.Text, "//go:build "); ok {
					tag = rest
				}
			}
		}
		for _, d := range af.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, sp := range gd.Specs {
				for _, n := range sp.(*ast.ValueSpec).Names {
					out[n.Name] = tag
				}
			}
		}
	}
	return out
}

func TestEverySwitchHasAnOnAndAnOffFileWithOppositeTags(t *testing.T) {
	on, off := declared(t, "*_on.go"), declared(t, "*_off.go")
	var names []string
	for n := range switches {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		tag, ok := on[n]
		if !ok || !strings.HasPrefix(tag, "mutant_") || strings.ContainsAny(tag, " &|!") {
			t.Errorf("%s: no *_on.go file with a single mutant_ build tag (got %q)", n, tag)
			continue
		}
		if off[n] != "!"+tag {
			t.Errorf("%s: the *_off.go build constraint is %q, want %q", n, off[n], "!"+tag)
		}
	}
	for n := range on {
		if _, ok := switches[n]; !ok {
			t.Errorf("%s is declared but missing from the switches table of this test", n)
		}
	}
	if len(on) != len(off) {
		t.Errorf("%d switches are declared on and %d off", len(on), len(off))
	}
}
