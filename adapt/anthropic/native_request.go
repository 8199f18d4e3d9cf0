package anthropic

import (
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"
)

// RequestOptions returns what a request to client.Messages.New needs for
// the provider to manage its context: the anthropic-beta header (Betas)
// and, unless native compaction is backing off after a failure, the
// context_management field (Config). Give them to every request of the
// conversation, after the client's own options:
//
//	resp, err := client.Messages.New(ctx, params, engine.RequestOptions()...)
//
// The header goes out even while backing off: a history that holds a
// compaction block needs it.
func (n *NativeEngine) RequestOptions() []option.RequestOption {
	var opts []option.RequestOption
	if b := n.Betas(); len(b) > 0 {
		names := make([]string, len(b))
		for i, v := range b {
			names[i] = string(v)
		}
		opts = append(opts, option.WithHeaderAdd("anthropic-beta", strings.Join(names, ",")))
	}
	if cfg := n.Config(); len(cfg.Edits) > 0 {
		opts = append(opts, option.WithJSONSet("context_management", cfg))
	}
	return opts
}

// Betas are the beta features the edits need: compact-2026-01-12 for
// compaction, context-management-2025-06-27 for clearing tool uses or
// thinking. A host on the SDK's beta client (client.Beta.Messages) gives
// them as BetaMessageNewParams.Betas, with Config as its ContextManagement.
func (n *NativeEngine) Betas() []sdk.AnthropicBeta {
	var out []sdk.AnthropicBeta
	if n.cfg.compaction {
		out = append(out, sdk.AnthropicBetaCompact2026_01_12)
	}
	if n.cfg.clearing || n.cfg.thinkingTurns > 0 {
		out = append(out, sdk.AnthropicBetaContextManagement2025_06_27)
	}
	return out
}

// Config is the context_management the next request carries: the edits in
// the order the provider applies them (clearing thinking, which the API
// wants first; clearing tool uses, as compact prunes before it summarises;
// compaction), each triggered at the same input tokens (see WithTrigger).
// It has no edits while native compaction is backing off after a failure.
func (n *NativeEngine) Config() sdk.BetaContextManagementConfigParam {
	var cfg sdk.BetaContextManagementConfigParam
	if !n.sendsEdits() {
		return cfg
	}
	trigger := int64(n.trigger())
	if k := n.cfg.thinkingTurns; k > 0 {
		cfg.Edits = append(cfg.Edits, sdk.BetaContextManagementConfigEditUnionParam{
			OfClearThinking20251015: &sdk.BetaClearThinking20251015EditParam{
				Keep: sdk.BetaClearThinking20251015EditKeepUnionParam{OfThinkingTurns: &sdk.BetaThinkingTurnsParam{Value: int64(k)}},
			}})
	}
	if n.cfg.clearing {
		e := &sdk.BetaClearToolUses20250919EditParam{
			Trigger: sdk.BetaClearToolUses20250919EditTriggerUnionParam{OfInputTokens: &sdk.BetaInputTokensTriggerParam{Value: trigger}},
			Keep:    sdk.BetaToolUsesKeepParam{Value: int64(n.cfg.keep)},
		}
		if n.cfg.clearAtLeast > 0 {
			e.ClearAtLeast = sdk.BetaInputTokensClearAtLeastParam{Value: int64(n.cfg.clearAtLeast)}
		}
		if len(n.cfg.exclude) > 0 {
			e.ExcludeTools = append([]string(nil), n.cfg.exclude...)
		}
		if n.cfg.clearInputs {
			e.ClearToolInputs = sdk.BetaClearToolUses20250919EditClearToolInputsUnionParam{OfBool: param.NewOpt(true)}
		}
		cfg.Edits = append(cfg.Edits, sdk.BetaContextManagementConfigEditUnionParam{OfClearToolUses20250919: e})
	}
	if n.cfg.compaction {
		e := &sdk.BetaCompact20260112EditParam{Trigger: sdk.BetaInputTokensTriggerParam{Value: trigger}}
		if n.cfg.pause {
			e.PauseAfterCompaction = param.NewOpt(true)
		}
		if n.cfg.instructions != "" {
			e.Instructions = param.NewOpt(n.cfg.instructions)
		}
		cfg.Edits = append(cfg.Edits, sdk.BetaContextManagementConfigEditUnionParam{OfCompact20260112: e})
	}
	return cfg
}
