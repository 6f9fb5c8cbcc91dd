package cn.agentao.agent.core;

import cn.agentao.agent.model.ModelChoice;
import cn.agentao.agent.model.ModelClient;
import cn.agentao.agent.model.ModelPrice;

/**
 * The model a turn talks to, resolved once when the turn starts (as codex's {@code TurnContext}): the choice, its
 * client, the reasoning effort, the context window and the price. A setting changed during the turn applies from
 * the next one; the project's catalog is not looked up again for every model call.
 *
 * @param reasoningEffort the session's thought level when the model takes one, else null
 * @param price           from config.json, or null
 */
record TurnModel(ModelChoice choice, ModelClient client, String reasoningEffort, long contextWindow, ModelPrice price) {}
