%% The runtime matrix's program for BEAM (test/scripts/runtime_matrix.py,
%% +JPperf map / dump): top -> outerLoop -> middle -> leaf -> a native call
%% every 64 iterations (erlang:phash2/1: the BIF's C code, phash2_1), called
%% where it is not a tail call, so every function keeps its frame. At the
%% first native call leaf prints BEAM's own stack trace before making the
%% call. Run as: erl -noshell -eval "erlang:phash2(ready), prog:main(['N'])."
%% (the native call once before this module is loaded).
-module(prog).
-export([main/1]).

leaf(I) ->
    case I band 63 of
        0 ->
            case get(printed) of
                undefined ->
                    put(printed, true),
                    {current_stacktrace, Trace} =
                        erlang:process_info(self(), current_stacktrace),
                    io:format("Error: leaf~n~s", [[io_lib:format("    at ~p:~p/~p~n", [M, F, A])
                                                   || {M, F, A, _} <- Trace]]);
                _ -> ok
            end,
            X = erlang:phash2(I),
            (X band 1) + ((I * 31) bxor (I bsr 3));
        _ -> (I * 31) bxor (I bsr 3)
    end.

middle(I) -> leaf(I) + (I band 7).

outerLoop(0, S) -> S;
outerLoop(N, S) -> S1 = S + middle(N), outerLoop(N - 1, S1).

top(N) -> R = outerLoop(N, 0), {result, R}.

main([Arg]) ->
    {result, R} = top(list_to_integer(atom_to_list(Arg))),
    io:format("result ~p~n", [R]),
    halt().
