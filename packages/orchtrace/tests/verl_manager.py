"""Runs verl's own reward path on orchtrace's compute_score, in the separate environment
`make test` makes for verl (.venv-verl): `get_custom_reward_fn` loads the function from the
file's path as a verl config names it, and `NaiveRewardManager` calls it on a batch whose
responses are the completions given (argv[2], a JSON list); a stand-in tokenizer decodes UTF-8
bytes. Prints each completion's reward and the extra keys verl keeps beside it, as JSON."""

import json
import sys

import torch
from omegaconf import OmegaConf
from verl import DataProto
from verl.trainer.ppo.reward import get_custom_reward_fn
from verl.workers.reward_manager.naive import NaiveRewardManager

repo = sys.argv[1]
completions = json.loads(sys.argv[2])


class Bytes:  # a tokenizer stand-in: a text's ids are its UTF-8 bytes
    def decode(self, ids: object, skip_special_tokens: bool = True) -> str:
        return bytes(int(i) for i in ids).decode()  # type: ignore[attr-defined]


config = OmegaConf.create(
    {
        "reward": {
            "custom_reward_function": {
                "path": f"{repo}/packages/orchtrace/src/orchtrace/trainers.py",
                "name": "compute_score",
                "reward_kwargs": {"reward": "critical_steps", "missing": -1.0},
            }
        }
    }
)
fn = get_custom_reward_fn(config)
ids = [list(c.encode()) or [32] for c in completions]
width = max(map(len, ids))
responses = torch.tensor([x + [0] * (width - len(x)) for x in ids])
prompts = torch.ones((len(ids), 2), dtype=torch.long)
mask = torch.cat(
    (torch.ones_like(prompts), torch.tensor([[1] * len(x) + [0] * (width - len(x)) for x in ids])),
    dim=1,
)
data = DataProto.from_dict(
    tensors={"prompts": prompts, "responses": responses, "attention_mask": mask},
    non_tensors={
        "data_source": ["swarm"] * len(ids),
        "reward_model": [{"ground_truth": None}] * len(ids),
        "extra_info": [{} for _ in ids],
    },
)
out = NaiveRewardManager(tokenizer=Bytes(), num_examine=0, compute_score=fn)(data, return_dict=True)
print(
    json.dumps(
        {
            "scores": out["reward_tensor"].sum(dim=1).tolist(),
            "supported": list(out["reward_extra_info"]["supported"]),
            "reason": list(out["reward_extra_info"]["reason"]),
        }
    )
)
